#!/usr/bin/env node
// Regenerates the checked-in files from mcpConfig() with the placeholder key:
//   node examples/mcp-config/write.mjs
// The test fails when a file and mcpConfig() disagree, so run this after changing either.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mcpConfig } from '@svc/content-client';

export const PLACEHOLDER_KEY = 'svc_REPLACE_WITH_YOUR_API_KEY';
export const SERVER_URL = 'http://localhost:3000';

/** Every checked-in file and what it must contain. */
export function expectedFiles() {
  const cfg = mcpConfig({ apiKey: PLACEHOLDER_KEY, serverUrl: SERVER_URL });
  const json = (value) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    'claude-desktop/claude_desktop_config.json': json(cfg.claudeDesktop),
    'cursor/mcp.json': json(cfg.cursor.http),
    'cursor/mcp.stdio.json': json(cfg.cursor.stdio),
    'vscode/mcp.json': json(cfg.vscode.http),
    'vscode/mcp.stdio.json': json(cfg.vscode.stdio),
    'claude-code/add-http.sh': `#!/bin/sh\n# Claude Code, Streamable HTTP transport\n${cfg.claudeCode.http.command}\n`,
    'claude-code/add-stdio.sh': `#!/bin/sh\n# Claude Code, stdio through the svc-mcp relay\n${cfg.claudeCode.stdio.command}\n`,
  };
}

if (process.argv[1] === import.meta.filename) {
  for (const [file, content] of Object.entries(expectedFiles())) {
    writeFileSync(join(import.meta.dirname, file), content);
    process.stdout.write(`wrote ${file}\n`);
  }
}
