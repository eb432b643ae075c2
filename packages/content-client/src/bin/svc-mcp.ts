#!/usr/bin/env node
// svc-mcp: the stdio relay for MCP clients that only speak stdio. Configured by
// SERVICE_API_URL and SERVICE_API_KEY; stdout carries protocol messages only.
import { runRelay } from '../relay/index.js';

runRelay({
  env: process.env,
  stdin: process.stdin,
  writeMessage: (line) => {
    process.stdout.write(`${line}\n`);
  },
  writeError: (text) => {
    process.stderr.write(text);
  },
}).then(
  (code) => {
    // Exit once stdout has drained, so the last reply is not cut off on an async pipe.
    process.stdout.write('', () => process.exit(code));
  },
  (err: unknown) => {
    process.stderr.write(`svc-mcp: unexpected failure: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
