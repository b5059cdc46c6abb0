#!/usr/bin/env node
/**
 * `kubeloom-egress-operator`: the egress-gateway operator's entry point. SIGTERM or SIGINT stop
 * it cleanly (workers finish, the Lease is released); a second signal exits at once.
 *
 * @module
 */

import { runOperator } from './cli/run-operator.ts';

const stop = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort(new Error(`received ${signal}`));
  });
}
process.exitCode = await runOperator({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  signal: stop.signal,
});
