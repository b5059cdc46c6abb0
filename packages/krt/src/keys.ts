import { INTERNAL } from './internal/symbols.ts';

/** An object that names its own key. */
export interface ResourceNamer {
  /** The object's key in a collection. */
  resourceName(): string;
}

/** Thrown when an object has no key. */
export class MissingKeyError extends TypeError {
  /** Creates the error. */
  constructor(what: string, where?: string) {
    super(
      `${where ? `${where}: ` : ''}cannot derive a key from ${what}: a krt object must be a string, ` +
        'have a resourceName() method, or be a Kubernetes object with metadata.name',
    );
    this.name = 'MissingKeyError';
  }
}

/**
 * The key of an object, or `undefined` when it has none: a string is its own key, then a
 * `resourceName()` method, then `namespace/name` (or `name`) of a Kubernetes object, then the
 * name of a krt collection (so collections of collections work).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#tryGetKey}
 */
export function tryGetKey(obj: unknown): string | undefined {
  if (typeof obj === 'string') return obj;
  if (obj === null || typeof obj !== 'object') return undefined;
  if (INTERNAL in obj) return (obj as unknown as { name: string }).name;
  const rn = (obj as Partial<ResourceNamer>).resourceName;
  if (typeof rn === 'function') return rn.call(obj);
  const meta = (obj as { metadata?: { name?: unknown; namespace?: unknown } }).metadata;
  if (meta !== null && typeof meta === 'object' && typeof meta.name === 'string' && meta.name !== '') {
    return typeof meta.namespace === 'string' && meta.namespace !== ''
      ? `${meta.namespace}/${meta.name}`
      : meta.name;
  }
  return undefined;
}

/**
 * The key of an object (see {@link tryGetKey}).
 *
 * @throws MissingKeyError when the object has none; `where` (a collection name) is in the message.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#getKey}
 */
export function getKey(obj: unknown, where?: string): string {
  const k = tryGetKey(obj);
  if (k === undefined) throw new MissingKeyError(describe(obj), where);
  return k;
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (typeof v !== 'object') return `${typeof v} ${String(v)}`;
  const ctor = (v as object).constructor?.name;
  let s: string;
  try {
    s = JSON.stringify(v);
  } catch {
    s = '[unserializable]';
  }
  if (s.length > 120) s = `${s.slice(0, 117)}...`;
  return `${ctor && ctor !== 'Object' ? `${ctor} ` : ''}${s}`;
}

/** A `namespace/name` pair as a keyed object (Istio's `Named`). */
export interface Named extends ResourceNamer {
  /** The name. */
  readonly name: string;
  /** The namespace; empty for cluster-scoped. */
  readonly namespace: string;
}

/**
 * Creates a {@link Named}.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#named}
 */
export function named(namespace: string, name: string): Named {
  return new NamedImpl(namespace, name);
}

class NamedImpl implements Named {
  readonly name: string;
  readonly namespace: string;
  constructor(namespace: string, name: string) {
    this.namespace = namespace;
    this.name = name;
  }
  resourceName(): string {
    return this.namespace ? `${this.namespace}/${this.name}` : this.name;
  }
}
