/**
 * A program for the signal tests (`process.test.ts`, `process.integration.test.ts`), run as
 *
 *   node --conditions=@kubeloom/source signal-child.ts <scenario> <signal> <root>
 *
 * It starts the library's machinery under `<root>`, prints one line `ready {json}` with the temp
 * directory and the child pids, then waits for `<signal>`. Scenarios:
 *
 * - `user-handler`: its own `process.once(signal)` listener (added first, as `pnpm demo` does)
 *   stops the child, removes the directory, then prints `cleanup-done`; the process then ends
 *   on its own.
 * - `user-handler-exits`: its listener does some async work, prints `cleanup-done` and calls
 *   `process.exit(0)` without stopping anything: the library's exit hook must clean up.
 * - `no-handler`: nobody listens: the process must die by the signal, cleaned up.
 * - `plane`: like `user-handler`, with a real control plane (`startControlPlane({ rootDir })`).
 */
import { writeSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createTempDir, removeTempDir, startProcess } from '../src/process.ts';

const [scenario, signalName, root] = process.argv.slice(2);
if (!scenario || !signalName || !root) {
  throw new Error('usage: signal-child.ts <scenario> <signal> <root>');
}
const signal = signalName as NodeJS.Signals;

/** Writes one line to stdout synchronously, so nothing is lost when the process dies. */
function say(line: string): void {
  writeSync(1, `${line}\n`);
}

if (scenario === 'plane') {
  let stop: (() => Promise<void>) | undefined;
  // The cleanup outlives the listener; a failure is printed for the test to see, never swallowed.
  process.once(signal, () => {
    (stop?.() ?? Promise.resolve()).then(
      () => say('cleanup-done'),
      (err: unknown) => say(`cleanup-failed ${String(err)}`),
    );
  });
  // By package name, from source (`--conditions=@kubeloom/source`), as a user's program would.
  const { startControlPlane } = await import('@kubeloom/testing');
  const plane = await startControlPlane({ rootDir: root });
  stop = () => plane.stop();
  say(
    `ready ${JSON.stringify({ dir: plane.dir, pids: [plane.processes.etcd.pid, plane.processes.apiServer.pid] })}`,
  );
} else {
  let onSignal: (() => Promise<void>) | undefined;
  if (scenario === 'user-handler' || scenario === 'user-handler-exits') {
    process.once(signal, () => void onSignal?.());
  } else if (scenario !== 'no-handler') {
    throw new Error(`unknown scenario ${scenario}`);
  }
  const dir = createTempDir(root, 'signal-child-');
  const child = startProcess(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], {
    name: 'sleeper',
    logFile: `${dir}/sleeper.log`,
  });
  onSignal =
    scenario === 'user-handler'
      ? async () => {
          await child.stop();
          removeTempDir(dir);
          say('cleanup-done');
        }
      : async () => {
          await nextTurn();
          say('cleanup-done');
          process.exit(0);
        };
  say(`ready ${JSON.stringify({ dir, pids: [child.pid] })}`);
}
