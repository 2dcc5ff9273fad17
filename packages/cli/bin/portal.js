#!/usr/bin/env node
// The `portal` command (docs/cli.md): the TypeScript source runs through tsx, as `npm run operator` does.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
