// The static CEL types the cost estimator needs to pick overloads as cel-go's checker does.
import type { DeclType } from './decl-type.ts';

/** A CEL type: scalars, lists, maps, schema objects and the opaque library types. */
export type CelType =
  | {
      readonly k: 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null' | 'duration' | 'timestamp';
    }
  | { readonly k: 'dyn' | 'type' }
  | { readonly k: 'list'; readonly elem: CelType }
  | { readonly k: 'map'; readonly key: CelType; readonly value: CelType }
  | { readonly k: 'struct'; readonly decl: DeclType }
  | { readonly k: 'opaque'; readonly name: string; readonly param?: CelType };

/** `dyn`. */
export const DYN: CelType = { k: 'dyn' };
/** `bool`. */
export const BOOL: CelType = { k: 'bool' };
/** `int`. */
export const INT: CelType = { k: 'int' };
/** `string`. */
export const STRING: CelType = { k: 'string' };

/** `optional_type(t)`. */
export function optionalOf(t: CelType): CelType {
  return { k: 'opaque', name: 'optional_type', param: t };
}

/** `list(t)`. */
export function listOf(t: CelType): CelType {
  return { k: 'list', elem: t };
}

/** The CEL type of a schema node. */
export function celTypeOf(d: DeclType): CelType {
  switch (d.kind) {
    case 'object':
      return { k: 'struct', decl: d };
    case 'list':
      return listOf(celTypeOf(d.elem!));
    case 'map':
      return { k: 'map', key: STRING, value: celTypeOf(d.elem!) };
    default:
      return { k: d.kind };
  }
}

/** Bool, double, duration, int, timestamp and uint, and optionals of them: size 1 (`isScalar`). */
export function isScalar(t: CelType): boolean {
  switch (t.k) {
    case 'bool':
    case 'double':
    case 'duration':
    case 'int':
    case 'timestamp':
    case 'uint':
      return true;
    case 'opaque':
      return t.name === 'optional_type' && t.param !== undefined && isScalar(t.param);
    default:
      return false;
  }
}

/** Whether the type is string or bytes (the kinds whose operations cost by length). */
export function isStringLike(t: CelType): boolean {
  return t.k === 'string' || t.k === 'bytes';
}

/** The element type of a list (undefined for anything else). */
export function elemOf(t: CelType): CelType | undefined {
  return t.k === 'list' ? t.elem : undefined;
}
