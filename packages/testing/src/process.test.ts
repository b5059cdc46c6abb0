import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processGone, runSignalChild } from '../test/signal-harness.ts';
import { waitFor } from './wait-for.ts';

// Each case runs a separate Node program that uses the library's child-process and temp-dir
// machinery from source, signals it, and checks what it left behind.
describe('signals and cleanup', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'kubeloom-signal-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  async function expectNothingLeft(pids: readonly number[]): Promise<void> {
    await waitFor('the child processes to be gone', () => pids.every(processGone));
    expect(readdirSync(root)).toEqual([]);
  }

  it.each(['SIGINT', 'SIGTERM'] as const)(
    "a program's own process.once(%s) listener finishes its async cleanup; the library does not end the process under it",
    async (signal) => {
      const run = await runSignalChild('user-handler', { signal, root });
      expect(run.stdout).toContain('cleanup-done');
      expect({ code: run.code, signal: run.signal, stderr: run.stderr }).toEqual({
        code: 0,
        signal: null,
        stderr: '',
      });
      await expectNothingLeft(run.ready.pids);
    },
  );

  it('a listener that exits without stopping anything: the exit hook kills the children and removes the temp dir', async () => {
    const run = await runSignalChild('user-handler-exits', { signal: 'SIGTERM', root });
    expect(run.stdout).toContain('cleanup-done');
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
    await expectNothingLeft(run.ready.pids);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'with no listener, %s ends the process by the signal, after a synchronous cleanup',
    async (signal) => {
      const run = await runSignalChild('no-handler', { signal, root });
      expect({ code: run.code, signal: run.signal }).toEqual({ code: null, signal });
      expect(run.stdout).not.toContain('cleanup-done');
      await expectNothingLeft(run.ready.pids);
    },
  );
});
