/**
 * Building, serving and crawling the docs site, for `scripts/docs-site.integration.test.ts`.
 *
 * - {@link buildSite}: what `pnpm run docs` does, into any folder: the packages' declarations
 *   (`tsc -b` of each entry point's tsconfig.build.json, which typedoc reads for cross-package
 *   types), then typedoc with the root typedoc.json; a warning or error fails it.
 * - {@link serveSite}: a static server on 127.0.0.1 (a free port).
 * - {@link brokenLinks}: every `href`/`src` of every HTML page reachable from index.html, checked
 *   against the files (and, for `#fragment`s, the ids) of the site.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function run(args: readonly string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], signal });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`node ${args.join(' ')} exited with ${code}:\n${out}`)),
    );
  });
}

/** Builds the docs site into `out` as `pnpm run docs` does; fails on any typedoc warning or error. */
export async function buildSite(out: string, signal?: AbortSignal): Promise<void> {
  const config = JSON.parse(readFileSync(path.join(root, 'typedoc.json'), 'utf8')) as {
    entryPoints: string[];
  };
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  await run([tsc, '-b', ...config.entryPoints.map((p) => path.join(p, 'tsconfig.build.json'))], signal);
  const typedoc = path.join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: typedoc colours its output
  const log = (await run([typedoc, '--out', out], signal)).replace(/\u001b\[[0-9;]*m/g, '');
  const problems = log.split('\n').filter((l) => /^\[(warning|error)\]/.test(l));
  if (problems.length > 0) throw new Error(`typedoc reported problems:\n${problems.join('\n')}`);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/** Serves `dir` on 127.0.0.1 (a free port); `[Symbol.asyncDispose]` closes the server. */
export async function serveSite(dir: string): Promise<{ url: string } & AsyncDisposable> {
  const server: Server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let file = path.join(dir, pathname);
    if (!file.startsWith(dir)) file = dir; // no escaping the site
    if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A link that does not resolve. */
export interface BrokenLink {
  /** The page it is on, relative to the site. */
  readonly page: string;
  /** The link as written. */
  readonly link: string;
  /** What is wrong. */
  readonly problem: string;
}

/** Every internal link of every page reachable from `dir/index.html`, and the pages crawled. */
export function brokenLinks(dir: string): { pages: number; links: number; broken: BrokenLink[] } {
  const queue = ['index.html'];
  const seen = new Set(queue);
  const broken: BrokenLink[] = [];
  const ids = new Map<string, Set<string>>();
  const idsOf = (file: string) => {
    let set = ids.get(file);
    if (!set) {
      set = new Set(
        [...readFileSync(path.join(dir, file), 'utf8').matchAll(/\b(?:id|name)="([^"]+)"/g)].map(
          (m) => m[1]!,
        ),
      );
      ids.set(file, set);
    }
    return set;
  };
  let links = 0;
  while (queue.length > 0) {
    const page = queue.shift()!;
    const html = readFileSync(path.join(dir, page), 'utf8');
    for (const m of html.matchAll(/\b(?:href|src)="([^"]*)"/g)) {
      const link = m[1]!.replaceAll('&amp;', '&');
      if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link === '#' || link === '') continue; // external or no-op
      links++;
      const url = new URL(link, `http://site/${page}`);
      const target = decodeURIComponent(url.pathname).replace(/^\//, '') || 'index.html';
      const file = path.join(dir, target);
      if (!existsSync(file) || statSync(file).isDirectory()) {
        broken.push({ page, link, problem: `${target} does not exist` });
        continue;
      }
      const fragment = decodeURIComponent(url.hash.slice(1));
      if (fragment && /\.(html|svg)$/.test(target) && !idsOf(target).has(fragment)) {
        broken.push({ page, link, problem: `${target} has no element with id "${fragment}"` });
      }
      if (target.endsWith('.html') && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return { pages: seen.size, links, broken };
}
