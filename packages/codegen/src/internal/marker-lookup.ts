import { MARKERS, type MarkerSpec } from '../markers.ts';

/** Standard TSDoc/JSDoc tags that are allowed and ignored. */
export const IGNORED_TAGS: ReadonlySet<string> = new Set([
  'see',
  'remarks',
  'since',
  'deprecated',
  'internal',
  'privateRemarks',
  'packageDocumentation',
  'public',
  'beta',
  'alpha',
  'experimental',
  'typeParam',
  'module',
  'link',
  'inheritDoc',
  'defaultValue',
]);

/** Markers by name. */
export const MARKERS_BY_NAME: ReadonlyMap<string, MarkerSpec> = new Map(MARKERS.map((m) => [m.name, m]));

function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...Array<number>(b.length).fill(0),
  ]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(
        d[i - 1]![j]! + 1,
        d[i]![j - 1]! + 1,
        d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest marker name to a misspelled one, if any is close. */
export function suggestMarker(name: string): string | undefined {
  const base = name.startsWith('items.') ? name.slice(6) : name;
  const prefix = name.startsWith('items.') ? 'items.' : '';
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const m of MARKERS) {
    const dd =
      m.name.toLowerCase() === base.toLowerCase() ? 0 : distance(m.name.toLowerCase(), base.toLowerCase());
    if (dd < bestD) {
      bestD = dd;
      best = m.name;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(base.length / 4))
    ? `${prefix}${best}`
    : undefined;
}
