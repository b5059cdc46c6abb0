#!/usr/bin/env node
/**
 * The `kubeloom-gen` executable: `crd` (TypeScript → CRD YAML) and `types` (CRD YAML →
 * TypeScript). See `runCli` for the options.
 *
 * @packageDocumentation
 */
import { runCli } from './cli-main.ts';

process.exitCode = runCli(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  cwd: process.cwd(),
});
