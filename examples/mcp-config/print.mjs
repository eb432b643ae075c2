#!/usr/bin/env node
// Prints the configuration for your key, ready to paste:
//
//   SERVICE_API_KEY=svc_... node print.mjs [claude-desktop|claude-code|cursor|vscode] [--stdio]
//
// The files next to this script are the same output for a placeholder key.
import { mcpConfig } from '@svc/content-client';

const apiKey = process.env.SERVICE_API_KEY;
if (!apiKey) {
  process.stderr.write('Set SERVICE_API_KEY (create one with POST /v1/api-keys or in the app).\n');
  process.exit(1);
}
const cfg = mcpConfig({ apiKey, serverUrl: process.env.SERVICE_API_URL ?? 'http://localhost:3000' });
const [client = 'cursor'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const transport = process.argv.includes('--stdio') ? 'stdio' : 'http';

const outputs = {
  'claude-desktop': () => JSON.stringify(cfg.claudeDesktop, null, 2),
  'claude-code': () => cfg.claudeCode[transport].command,
  cursor: () => JSON.stringify(cfg.cursor[transport], null, 2),
  vscode: () => JSON.stringify(cfg.vscode[transport], null, 2),
};
if (!(client in outputs)) {
  process.stderr.write(`Unknown client "${client}"; one of: ${Object.keys(outputs).join(', ')}.\n`);
  process.exit(1);
}
process.stdout.write(`${outputs[client]()}\n`);
