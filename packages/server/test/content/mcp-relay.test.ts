// The official SDK client over stdio, through the svc-mcp relay from @svc/content-client
// spawned as a real child process, against a real server. The root `pnpm test` builds the
// relay before vitest runs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/start.js';
import { LABEL, makeKey, ok } from './mcp-helpers.js';

const RELAY = join(import.meta.dirname, '../../../content-client/dist/bin/svc-mcp.js');

let svc: TestService;
let client: Client;
let stderr = '';

beforeAll(async () => {
  if (!existsSync(RELAY))
    throw new Error(`${RELAY} is missing: run \`pnpm --filter @svc/content-client build\`.`);
  svc = await startTestService('content', { config: { seed: 'demo' } });
  const { key } = await makeKey(svc, ['read', 'write']);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [RELAY],
    env: { PATH: process.env.PATH ?? '', SERVICE_API_URL: svc.url, SERVICE_API_KEY: key },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (c) => {
    stderr += c;
  });
  client = new Client({ name: 'svc-relay-test', version: '0.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await svc?.close();
});

it('lists the 23 tools, calls read and write tools, and reads the resource through the relay', async () => {
  expect((await client.listTools()).tools).toHaveLength(23);
  expect(client.getServerVersion()?.name).toBe('svc-content');
  const brands = await ok(client, 'list_brands');
  const brandId = brands.data.brands[0].id;
  const idea = await ok(client, 'create_idea', { brandId, title: 'Sent over stdio' });
  expect(idea.text.startsWith(LABEL)).toBe(true);
  const drafts = await ok(client, 'draft_idea', { ideaId: idea.data.idea.id, platforms: ['x'] });
  const proposed = await ok(client, 'propose_post', { draftId: drafts.data.drafts[0].id });
  expect(proposed.data.approval.status).toBe('pending');
  const memory = await client.readResource({ uri: `service://brands/${brandId}/memory` });
  expect(JSON.parse((memory.contents[0] as { text: string }).text)).toHaveProperty('voice');
  expect(stderr).toBe('');
});
