#!/usr/bin/env node
// The `svc-mcp` bin. It is a committed file rather than dist/bin/svc-mcp.js itself so that
// installing a fresh clone of the workspace, before anything is built, can link it without
// a warning. The published package ships dist/ beside it.
import { existsSync } from 'node:fs';

const relay = new URL('../dist/bin/svc-mcp.js', import.meta.url);
if (!existsSync(relay)) {
  process.stderr.write('svc-mcp: not built yet. From the repository root run `pnpm build`.\n');
  process.exit(70);
}
await import(relay.href);
