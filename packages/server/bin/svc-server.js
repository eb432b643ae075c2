#!/usr/bin/env node
// The `svc-server` bin. It is a committed file rather than dist/cli.js itself so that
// installing a fresh clone of the workspace, before anything is built, can link it without
// a warning. The published package ships dist/ beside it.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'svc-server: not built yet. From the repository root run `npm start` or `pnpm build`.\n',
  );
  process.exit(70);
}
// `start` runs with svc's V8 flags (bin/node-flags.js); the short keys commands do not need them.
if (process.argv[2] === 'start') {
  const { relaunchWithNodeFlags } = await import('./node-flags.js');
  await relaunchWithNodeFlags(process.argv[1], process.argv.slice(2));
}
await import(cli.href);
