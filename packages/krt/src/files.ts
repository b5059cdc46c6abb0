import { type FSWatcher, readdirSync, readFileSync, statSync, watch } from 'node:fs';
import path from 'node:path';
import { consoleLogger, serializeError } from '@kubeloom/kube';
import { parseAllDocuments } from 'yaml';
import type { Collection } from './core.ts';
import type { CollectionOptions } from './options.ts';
import { staticCollection } from './static.ts';

/** Options of {@link fileCollection}. */
export interface FileCollectionOptions<T> extends CollectionOptions {
  /** Parses one file's content into objects. Default: every YAML document (`---`-separated), nulls dropped. */
  readonly parse?: ((content: string, file: string) => T[]) | undefined;
  /** Waits this long after a change before re-reading (default 250 ms). */
  readonly debounceMs?: number | undefined;
}

/**
 * Parses every YAML document of a string (empty documents dropped). @throws Error on a syntax error.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#fileCollection}
 */
export function parseYamlDocuments<T>(content: string): T[] {
  const out: T[] = [];
  for (const doc of parseAllDocuments(content)) {
    if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('; '));
    const v = doc.toJS() as T | null;
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

function listYamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    if (!/\.ya?ml$/.test(entry.name)) continue;
    out.push(path.join(entry.parentPath, entry.name));
  }
  return out.sort();
}

function readAll<T>(dir: string, parse: (content: string, file: string) => T[]): T[] {
  const out: T[] = [];
  for (const file of listYamlFiles(dir)) {
    const content = readFileSync(file, 'utf8');
    if (content.trim() === '') continue; // a write in progress
    out.push(...parse(content, file));
  }
  return out;
}

/**
 * A collection over a directory of YAML files (recursively, `.yaml` and `.yml`), for
 * configuration: read once at construction (errors are thrown), then re-read in full a debounce
 * after any change, emitting only the differences. A reload that fails (a syntax error, a file
 * half written) keeps the previous contents and logs the error.
 *
 * @throws Error when the directory cannot be read or a file does not parse initially.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#fileCollection}
 */
export function fileCollection<T>(dir: string, opts: FileCollectionOptions<T>): Collection<T> {
  const parse = opts.parse ?? ((c: string) => parseYamlDocuments<T>(c));
  if (!statSync(dir).isDirectory()) throw new Error(`fileCollection: ${dir} is not a directory`);
  const initial = readAll(dir, parse);
  const { parse: _p, debounceMs: _d, ...rest } = opts;
  const c = staticCollection<T>(initial, { name: `Files[${dir}]`, ...rest });
  const debounceMs = opts.debounceMs ?? 250;
  const log = opts.logger ?? consoleLogger('warn');
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  const reload = (): void => {
    timer = undefined;
    if (opts.signal.aborted) return;
    try {
      c.reset(readAll(dir, parse));
    } catch (err) {
      log.error('file collection reload failed; keeping the previous contents', {
        dir,
        err: serializeError(err),
      });
    }
  };
  if (!opts.signal.aborted) {
    watcher = watch(dir, { recursive: true }, () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(reload, debounceMs);
    });
    watcher.on('error', (err) => log.error('file watch failed', { dir, err: serializeError(err) }));
    opts.signal.addEventListener(
      'abort',
      () => {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
        watcher?.close();
      },
      { once: true },
    );
  }
  return c;
}
