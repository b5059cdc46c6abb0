// Reading values out of the YAML of a CRD: typed scalars and lists with a located error when the
// type is wrong, map entries, and unknown keys reported instead of dropped.
import { isMap, isScalar, type Node, type Pair, type YAMLMap } from 'yaml';
import type { YamlContext } from './yaml-context.ts';

export function entries(map: YAMLMap): Array<[string, Node | null, Pair]> {
  const out: Array<[string, Node | null, Pair]> = [];
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    out.push([key, (pair.value as Node | null) ?? null, pair]);
  }
  return out;
}

export function js(node: Node | null): unknown {
  return node === null ? null : node.toJSON();
}

export function num(ctx: YamlContext, node: Node | null, key: string): number | undefined {
  const v = js(node);
  if (typeof v !== 'number') {
    ctx.error(node, `${key} must be a number, got ${JSON.stringify(v)}`);
    return undefined;
  }
  return v;
}

export function bool(ctx: YamlContext, node: Node | null, key: string): boolean | undefined {
  const v = js(node);
  if (typeof v !== 'boolean') {
    ctx.error(node, `${key} must be true or false, got ${JSON.stringify(v)}`);
    return undefined;
  }
  return v;
}

export function str(ctx: YamlContext, node: Node | null, key: string): string | undefined {
  const v = js(node);
  if (typeof v !== 'string') {
    ctx.error(node, `${key} must be a string, got ${JSON.stringify(v)}`);
    return undefined;
  }
  return v;
}

export function strList(ctx: YamlContext, node: Node | null, key: string): string[] | undefined {
  const v = js(node);
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    ctx.error(node, `${key} must be a list of strings`);
    return undefined;
  }
  return v as string[];
}

/** Which map entry {@link getMap} reads: `key` of the map at `where`, required unless said otherwise. */
export interface MapEntryRef {
  readonly key: string;
  readonly where: string;
  readonly required?: boolean;
}

export function getMap(
  ctx: YamlContext,
  map: YAMLMap,
  { key, where, required = true }: MapEntryRef,
): YAMLMap | undefined {
  const pair = map.items.find((p) => isScalar(p.key) && p.key.value === key);
  const value = pair?.value as Node | undefined;
  if (!value) {
    if (required) ctx.error(map, `${where} lacks ${key}`);
    return undefined;
  }
  if (!isMap(value)) {
    ctx.error(value, `${where}.${key} must be a map`);
    return undefined;
  }
  return value;
}

export function getValue(map: YAMLMap | undefined, key: string): Node | null {
  const pair = map?.items.find((p) => isScalar(p.key) && p.key.value === key);
  return (pair?.value as Node | undefined) ?? null;
}

/**
 * Reports keys of a CRD-level map the model does not carry (so nothing is dropped silently):
 * `where` names the map, `allowed` its known keys.
 */
export function onlyKeys(
  ctx: YamlContext,
  { map, where }: { map: YAMLMap; where: string },
  allowed: readonly string[],
): void {
  for (const [key, , pair] of entries(map)) {
    if (!allowed.includes(key))
      ctx.error(
        pair,
        `unknown field ${where}.${key} (known: ${allowed.join(', ')}); kubeloom-gen would drop it`,
      );
  }
}

export function stringRecord(v: unknown): Record<string, string> | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) out[k] = String(val);
  return Object.keys(out).length > 0 ? out : undefined;
}
