import type { SchemaNode } from '../ir.ts';

function isIntOrStringPair(list: readonly SchemaNode[] | undefined): boolean {
  if (list?.length !== 2) return false;
  const types = list.map(
    (s) =>
      Object.keys(s)
        .filter((k) => k !== 'location')
        .join(',') === 'type' && s.type,
  );
  return types[0] === 'integer' && types[1] === 'string';
}

/** The two junctor shapes the apiserver allows with `x-kubernetes-int-or-string`. */
export function isIntOrStringJunctor(node: SchemaNode, key: 'anyOf' | 'oneOf' | 'allOf'): boolean {
  if (key === 'anyOf') return isIntOrStringPair(node.anyOf);
  if (key === 'allOf') return node.allOf?.length === 1 && isIntOrStringPair(node.allOf[0]?.anyOf);
  return false;
}
