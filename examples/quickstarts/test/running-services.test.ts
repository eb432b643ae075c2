// The quick starts that need the services already running (as `npm start` leaves them), and the
// client READMEs' quick starts: one svc-server with both services for all of them, as a reader has.
// Each doc works on its own objects (its own key, user, brand or signal), so they do not interfere.
import { ContentClient } from '@svc/content-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runDoc, type Server, startServer } from './harness.js';

let server: Server;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.stop());

it('docs/quickstarts/commerce-app.md: a sandbox purchase, as written', async () => {
  const { stdout } = await runDoc('docs/quickstarts/commerce-app.md', {
    env: { SERVICE_API_URL: server.urls.commerce as string, ...server.storage },
  });
  expect(stdout).toMatch(/^offer ofr_\w+: Kettle, [\d.]+ USD$/m);
  expect(stdout).toMatch(/^checkout chk_\w+: requires_user_action$/m);
  expect(stdout).toMatch(/^checkout chk_\w+: ready_to_confirm$/m);
  expect(stdout).toMatch(/^confirmed: completed, order ord_\w+; retry replayed: true$/m);
  expect(stdout).toMatch(/^order ord_\w+: placed$/m);
});

it('docs/quickstarts/mcp-agent.md: key, config, relay, signal, tools; the post waits for a person', async () => {
  const url = server.urls.content as string;
  const { ran } = await runDoc('docs/quickstarts/mcp-agent.md', {
    env: { SERVICE_API_URL: url, ...server.storage },
    shownAs: { [url]: 'http://127.0.0.1:3000' },
  });
  const out = (command: string) => ran.find((r) => r.block.code.includes(command))?.stdout ?? '';

  const config = JSON.parse(out('node config.mjs'));
  expect(config.mcpServers.svc.url).toBe(`${url}/mcp`);
  expect(config.mcpServers.svc.headers.Authorization).toMatch(/^Bearer svc_\w+$/);
  // The relay passed the ping to the service with the key, and its answer back.
  expect(JSON.parse(out('npx svc-mcp'))).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  expect(out('node signal.mjs')).toMatch(/^Signal sig_\w+ on \S/);

  const agent = out('node agent.mjs');
  const tools = agent.match(/^23 tools: (.*)$/m)?.[1]?.split(', ') ?? [];
  expect(tools).toEqual(
    expect.arrayContaining(['list_brands', 'suggest_ideas', 'draft_idea', 'propose_post']),
  );
  expect(tools.filter((t) => /approve|publish|schedule|delete/.test(t))).toEqual([]);
  const approvalId = agent.match(/^Proposed: approval (apr_\w+) is pending$/m)?.[1];
  expect(approvalId).toBeTruthy();

  // The person's side: pending until someone approves it over REST; nothing was scheduled.
  const rest = new ContentClient({ baseUrl: url });
  expect((await rest.approvals.retrieve(approvalId as string)).status).toBe('pending');
  expect((await rest.posts.list({ status: 'scheduled' })).items).toHaveLength(0);
});

it('packages/content-client/README.md: the quick start plans a week, as written', async () => {
  const { stdout, files } = await runDoc('packages/content-client/README.md', {
    section: 'Quick start',
    env: { SERVICE_API_URL: server.urls.content as string, ...server.storage },
  });
  expect(files).toEqual(['quickstart.mjs']);
  expect(stdout).toMatch(/^".+": x and linkedin drafts$/m);
  expect(stdout).toMatch(/^waiting for a person: apr_\w+$/m);
});

it('packages/commerce-client/README.md: the quick start buys in the sandbox, as written', async () => {
  const { stdout, files } = await runDoc('packages/commerce-client/README.md', {
    section: 'Quick start',
    env: { SERVICE_API_URL: server.urls.commerce as string, ...server.storage },
  });
  expect(files).toEqual(['quickstart.mjs']);
  expect(stdout).toMatch(/^order ord_\w+: placed$/m);
});
