import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processGone, runSignalChild } from '../test/signal-harness.ts';
import { waitFor } from './wait-for.ts';

describe('signals and cleanup with a real control plane', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'kubeloom-signal-plane-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  // `pnpm demo` on Ctrl-C: its own SIGINT listener stops the plane. Before the fix the library
  // re-raised the signal first, so the plane's directory (etcd data, ~120 MB in /dev/shm) stayed.
  it('Ctrl-C on a program that stops its plane in its own SIGINT listener: the stop completes, nothing is left', async () => {
    const run = await runSignalChild('plane', { signal: 'SIGINT', root, timeoutMs: 120_000 });
    expect(run.stdout).toContain('cleanup-done');
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
    await waitFor('etcd and kube-apiserver to be gone', () => run.ready.pids.every(processGone));
    expect(readdirSync(root)).toEqual([]);
  }, 180_000);
});
