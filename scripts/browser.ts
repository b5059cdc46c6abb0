/**
 * Headless Chromium driven over the DevTools protocol, for the docs site's browser test
 * (`scripts/docs-site.integration.test.ts`). No npm dependency: Chromium is Debian's `chromium`
 * package (`.ci/run` installs it when missing), and the protocol is JSON over the WebSocket that
 * Node has built in.
 *
 *   await using browser = await launchChromium({ signal });
 *   const page = await browser.newPage({ width: 1280, height: 900 });
 *   await page.goto('http://127.0.0.1:8080/');
 *   const title = await page.evaluate<string>('document.title');
 *   writeFileSync('landing.png', await page.screenshot());
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** How to get a browser, for the error a test fails with when none is found. */
export const CHROMIUM_HELP =
  'headless Chromium is needed for the docs browser test: on Debian/Ubuntu `apt-get install -y chromium` ' +
  '(`.ci/run` installs it when missing), or put a Chromium or Chrome binary on PATH as `chromium`';

/** The Chromium binary: the first of chromium, chromium-browser, google-chrome on PATH. */
export function findChromium(): string {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    if (spawnSync(name, ['--version']).status === 0) return name;
  }
  throw new Error(`no Chromium found on PATH: ${CHROMIUM_HELP}`);
}

interface Pending {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  method: string;
}

/** One tab. */
export interface Page {
  /** Navigates and resolves once the page's load event fired. */
  goto(url: string): Promise<void>;
  /** Evaluates `expression` in the page (promises are awaited) and returns its JSON value. */
  evaluate<T>(expression: string): Promise<T>;
  /** Polls `expression` until it is truthy; fails with `what` after `timeoutMs` (default 60 s). */
  waitFor<T>(what: string, expression: string, timeoutMs?: number): Promise<T>;
  /** A PNG of the whole page. */
  screenshot(): Promise<Buffer>;
  /** Errors the page threw or logged with console.error since it was opened. */
  readonly errors: readonly string[];
}

/** A running headless Chromium. */
export interface Browser extends AsyncDisposable {
  /** Opens a tab of the given viewport size. */
  newPage(viewport: { width: number; height: number }): Promise<Page>;
}

/** Starts headless Chromium with a throwaway profile; `[Symbol.asyncDispose]` stops it and removes the profile. */
export async function launchChromium(options: { signal?: AbortSignal } = {}): Promise<Browser> {
  const binary = findChromium();
  // Everything Chromium writes goes under one directory removed on stop: the profile, and its
  // temp directory (TMPDIR), where it makes the `org.chromium.Chromium.*` singleton-socket
  // directory that a profile outside /tmp would otherwise leave in /tmp after every run.
  const root = mkdtempSync(path.join(tmpdir(), 'kubeloom-chromium-'));
  const profile = path.join(root, 'profile');
  const tmp = path.join(root, 'tmp');
  mkdirSync(profile);
  mkdirSync(tmp);
  const child: ChildProcess = spawn(
    binary,
    [
      '--headless',
      '--no-sandbox', // we are root in CI
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--no-default-browser-check',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TMPDIR: tmp } },
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(root, { recursive: true, force: true });
  };
  options.signal?.addEventListener('abort', () => void stop(), { once: true });

  let stderr = '';
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Chromium did not start within 60 s:\n${stderr}`)),
      60_000,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium (${binary}) exited with ${code} before listening:\n${stderr}`));
    });
  }).catch(async (e: unknown) => {
    await stop();
    throw e;
  });

  const ws = new WebSocket(endpoint);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error(`cannot connect to Chromium at ${endpoint}`)), {
      once: true,
    });
  });
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const listeners = new Set<(method: string, params: Record<string, unknown>, sessionId?: string) => void>();
  ws.addEventListener('message', (event) => {
    const msg = JSON.parse(String(event.data)) as {
      id?: number;
      result?: Record<string, unknown>;
      error?: { message: string };
      method?: string;
      params?: Record<string, unknown>;
      sessionId?: string;
    };
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(`${p.method}: ${msg.error.message}`));
      else p?.resolve(msg.result ?? {});
    } else if (msg.method) {
      for (const l of listeners) l(msg.method, msg.params ?? {}, msg.sessionId);
    }
  });
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject, method });
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });

  return {
    async newPage({ width, height }) {
      const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = (await send('Target.attachToTarget', { targetId, flatten: true })) as {
        sessionId: string;
      };
      const errors: string[] = [];
      listeners.add((method, params, from) => {
        if (from !== sessionId) return;
        if (method === 'Runtime.exceptionThrown') {
          const details = params.exceptionDetails as { text?: string; exception?: { description?: string } };
          errors.push(details.exception?.description ?? details.text ?? 'exception');
        } else if (method === 'Runtime.consoleAPICalled' && params.type === 'error') {
          errors.push(JSON.stringify(params.args));
        }
      });
      await send('Page.enable', {}, sessionId);
      await send('Runtime.enable', {}, sessionId);
      await send(
        'Emulation.setDeviceMetricsOverride',
        { width, height, deviceScaleFactor: 1, mobile: false },
        sessionId,
      );
      const evaluate = async <T>(expression: string): Promise<T> => {
        const r = (await send(
          'Runtime.evaluate',
          { expression, awaitPromise: true, returnByValue: true },
          sessionId,
        )) as {
          result: { value?: T };
          exceptionDetails?: { exception?: { description?: string }; text?: string };
        };
        if (r.exceptionDetails) {
          throw new Error(
            `evaluating ${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`,
          );
        }
        return r.result.value as T;
      };
      return {
        errors,
        async goto(url) {
          const loaded = new Promise<void>((resolve) => {
            const l = (method: string, _p: unknown, from?: string) => {
              if (from === sessionId && method === 'Page.loadEventFired') {
                listeners.delete(l);
                resolve();
              }
            };
            listeners.add(l);
          });
          const r = (await send('Page.navigate', { url }, sessionId)) as { errorText?: string };
          if (r.errorText) throw new Error(`navigating to ${url}: ${r.errorText}`);
          await loaded;
        },
        evaluate,
        async waitFor<T>(what: string, expression: string, timeoutMs = 60_000) {
          const deadline = Date.now() + timeoutMs;
          let last: unknown;
          for (;;) {
            last = await evaluate<unknown>(expression);
            if (last) return last as T;
            if (Date.now() > deadline)
              throw new Error(
                `timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`,
              );
            await new Promise((r) => setTimeout(r, 100));
          }
        },
        async screenshot() {
          const { data } = (await send(
            'Page.captureScreenshot',
            { format: 'png', captureBeyondViewport: true },
            sessionId,
          )) as {
            data: string;
          };
          return Buffer.from(data, 'base64');
        },
      };
    },
    async [Symbol.asyncDispose]() {
      for (const p of pending.values()) p.reject(new Error('browser closed'));
      pending.clear();
      ws.close();
      await stop();
    },
  };
}
