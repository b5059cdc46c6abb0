import type { WatchEvent } from '../api.ts';
import type { Status } from '../errors.ts';
import type { KubeObject } from '../object.ts';

const OBJECT_EVENTS = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/** Decodes one line of a watch stream into a {@link WatchEvent}; never throws. */
export function decodeWatchLine<T extends KubeObject>(line: string): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    return {
      type: 'MALFORMED',
      line: line.length > 1000 ? `${line.slice(0, 1000)}…` : line,
      error: (err as Error).message,
    };
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    typeof (parsed as { type?: unknown }).type !== 'string'
  ) {
    return {
      type: 'MALFORMED',
      line: line.slice(0, 1000),
      error: 'not a watch event: expected {"type": ..., "object": ...}',
    };
  }
  const { type, object } = parsed as { type: string; object?: unknown };
  if (type === 'ERROR') {
    return { type: 'ERROR', status: (object ?? {}) as Status };
  }
  if (OBJECT_EVENTS.has(type)) {
    if (typeof object !== 'object' || object === null) {
      return { type: 'MALFORMED', line: line.slice(0, 1000), error: `${type} event without an object` };
    }
    // The parsed line already has the event's shape: hand it on without another allocation.
    return parsed as WatchEvent<T>;
  }
  return { type: 'UNKNOWN', eventType: type, raw: parsed };
}
