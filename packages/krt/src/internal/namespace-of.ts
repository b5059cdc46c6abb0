/**
 * The namespace of an object, as krt's namespace index and label indexes see it:
 * `metadata.namespace`, else a `namespace` string field, else a `getNamespace()` method; `''`
 * when none (cluster-scoped objects, plain values).
 */
export function namespaceOf(o: unknown): string {
  if (o !== null && typeof o === 'object') {
    const meta = (o as { metadata?: { namespace?: string } }).metadata;
    if (meta) return meta.namespace ?? '';
    const ns = (o as { namespace?: unknown }).namespace;
    if (typeof ns === 'string') return ns;
    const fn = (o as { getNamespace?: () => string }).getNamespace;
    if (typeof fn === 'function') return fn.call(o);
  }
  return '';
}
