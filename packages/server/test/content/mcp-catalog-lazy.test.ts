// The MCP tool catalog (every tool's zod schemas as JSON Schema) is built on the first
// `tools/list`, not at start: converting it was 5-7 % of a cold start. These tests hold the
// laziness (a start builds nothing), the single build (two first `tools/list` at once build each
// definition once and get the same whole answer) and that a call needs no definition at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogDefinitionsBuilt, compileCatalog } from '../../src/content/mcp/catalog.js';
import { TOOLS } from '../../src/content/mcp/tools/index.js';
import { startTestService, type TestService } from '../helpers/start.js';
import { makeKey, rawMcp } from './mcp-helpers.js';

const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

describe('the MCP tool catalog on a fresh server', () => {
  let svc: TestService;
  let key: string;
  let builtBeforeStart: number;
  beforeAll(async () => {
    builtBeforeStart = catalogDefinitionsBuilt();
    svc = await startTestService('content');
    key = (await makeKey(svc, ['read'])).key;
  });
  afterAll(() => svc?.close());

  it('builds no tool definition to start, nor to call a tool', async () => {
    expect(catalogDefinitionsBuilt()).toBe(builtBeforeStart);
    const call = await rawMcp(svc, {
      key,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_agents', arguments: {} } },
    });
    expect(call.status).toBe(200);
    expect(call.body.result.isError).toBeFalsy();
    expect(catalogDefinitionsBuilt()).toBe(builtBeforeStart);
  });

  it('builds each definition once for two concurrent first tools/list, and both get the whole list', async () => {
    const [a, b] = await Promise.all([
      rawMcp(svc, { key, body: list(1) }),
      rawMcp(svc, { key, body: list(2) }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(catalogDefinitionsBuilt() - builtBeforeStart).toBe(TOOLS.length);
    const names = a.body.result.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(TOOLS.map((t) => t.name));
    expect(b.body.result).toEqual(a.body.result);
    // The same as a catalog built eagerly from the same declarations.
    const fresh = compileCatalog(TOOLS);
    expect(a.body.result).toEqual(JSON.parse(JSON.stringify(fresh.listResult())));
    // Later lists reuse it.
    const again = await rawMcp(svc, { key, body: list(3) });
    expect(again.body.result).toEqual(a.body.result);
    expect(catalogDefinitionsBuilt() - builtBeforeStart).toBe(2 * TOOLS.length);
  });
});

describe('compileCatalog', () => {
  it('still refuses a tool declared twice when the app is built, not on the first tools/list', () => {
    const [first] = TOOLS;
    if (!first) throw new Error('no tools');
    expect(() => compileCatalog([first, first])).toThrow(`MCP tool '${first.name}' is declared twice`);
  });
});
