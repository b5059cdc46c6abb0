#!/usr/bin/env node
// The `kubeloom-testing` command; see src/cli.ts. An installed package runs the compiled
// dist/cli.js. A kubeloom checkout runs the TypeScript source, so the command works right after
// `pnpm install`, with nothing built (Node >= 22.18 runs TypeScript, but never inside node_modules).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(import.meta.url);
const source = path.join(path.dirname(here), '..', 'src', 'cli.ts');
const checkout = !here.split(path.sep).includes('node_modules') && existsSync(source);
const { main } = await import(checkout ? pathToFileURL(source).href : '../dist/cli.js');
process.exitCode = await main(process.argv.slice(2));
