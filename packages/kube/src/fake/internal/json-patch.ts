import { clone, deepEqual, isObject, type JsonObject } from './json.ts';

/** Thrown when a JSON patch is malformed (400) or does not apply (422). */
export class JsonPatchError extends Error {
  /** True when the patch document itself is malformed, rather than failing against the object. */
  readonly malformed: boolean;
  /** Creates the error. */
  constructor(message: string, malformed: boolean) {
    super(message);
    this.malformed = malformed;
  }
}

interface Operation {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw new JsonPatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`, false);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, forInsert: boolean): number {
  if (forInsert && token === '-') return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new JsonPatchError(`invalid array index ${token}`, false);
  const i = Number(token);
  if (forInsert ? i > length : i >= length)
    throw new JsonPatchError(`array index ${token} out of bounds`, false);
  return i;
}

function parentOf(doc: unknown, tokens: readonly string[]): unknown {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length, false)];
    else if (isObject(cur) && Object.hasOwn(cur, t)) cur = cur[t];
    else throw new JsonPatchError(`path ${tokens.join('/')} does not exist`, false);
  }
  return cur;
}

/** A container this patch may change: `value` itself unless frozen (shared with the stored object), else a shallow copy. */
function writable(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return value;
  return Array.isArray(value) ? value.slice() : { ...(value as JsonObject) };
}

/**
 * The parent of the place `tokens` names, made writable: every frozen container on the way
 * (a part shared with the stored object) is replaced in its own parent by a shallow copy.
 * `doc` itself must be writable.
 */
function writableParentOf(doc: unknown, tokens: readonly string[]): unknown {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) {
      const i = arrayIndex(t, cur.length, false);
      cur = cur[i] = writable(cur[i]);
    } else if (isObject(cur) && Object.hasOwn(cur, t)) {
      const next = writable(cur[t]);
      if (next !== cur[t])
        Object.defineProperty(cur, t, { value: next, enumerable: true, writable: true, configurable: true });
      cur = next;
    } else throw new JsonPatchError(`path ${tokens.join('/')} does not exist`, false);
  }
  return cur;
}

function get(doc: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return doc;
  const parent = parentOf(doc, tokens);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) return parent[arrayIndex(last, parent.length, false)];
  if (isObject(parent) && Object.hasOwn(parent, last)) return parent[last];
  throw new JsonPatchError(`path ${pointer} does not exist`, false);
}

function add(doc: unknown, pointer: string, value: unknown): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const parent = writableParentOf(doc, tokens);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true), 0, value);
  else if (isObject(parent)) parent[last] = value;
  else throw new JsonPatchError(`cannot add at ${pointer}`, false);
  return doc;
}

function remove(doc: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw new JsonPatchError('cannot remove the whole document', false);
  const parent = writableParentOf(doc, tokens);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, false), 1);
  else if (isObject(parent) && Object.hasOwn(parent, last)) delete parent[last];
  else throw new JsonPatchError(`path ${pointer} does not exist`, false);
  return doc;
}

/**
 * Applies a JSON patch (RFC 6902: add, remove, replace, move, copy, test) to `target`, which is
 * not changed: what the patch changes is copied (a frozen part is shallow-copied before it is
 * changed; see {@link writableParentOf}), the rest is `target`'s own. @throws JsonPatchError
 */
export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw new JsonPatchError('invalid JSON patch', true);
  let doc = Object.isFrozen(target) ? writable(target) : clone(target);
  for (const raw of patch) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw new JsonPatchError('invalid JSON patch', true);
    }
    const op = raw as unknown as Operation;
    switch (op.op) {
      case 'add':
        if (!('value' in raw)) throw new JsonPatchError('invalid JSON patch', true);
        doc = add(doc, op.path, clone(op.value));
        break;
      case 'remove':
        doc = remove(doc, op.path);
        break;
      case 'replace':
        if (!('value' in raw)) throw new JsonPatchError('invalid JSON patch', true);
        get(doc, op.path);
        doc = op.path === '' ? clone(op.value) : add(remove(doc, op.path), op.path, clone(op.value));
        break;
      case 'move': {
        if (typeof op.from !== 'string') throw new JsonPatchError('invalid JSON patch', true);
        const value = get(doc, op.from);
        doc = add(remove(doc, op.from), op.path, value);
        break;
      }
      case 'copy': {
        if (typeof op.from !== 'string') throw new JsonPatchError('invalid JSON patch', true);
        doc = add(doc, op.path, clone(get(doc, op.from)));
        break;
      }
      case 'test':
        if (!deepEqual(get(doc, op.path), op.value))
          throw new JsonPatchError(`test failed at ${op.path}`, false);
        break;
      default:
        throw new JsonPatchError(`unexpected kind: ${op.op}`, true);
    }
  }
  return doc;
}
