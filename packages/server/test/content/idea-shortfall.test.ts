// Idea suggestions that run dry say so, the same way over REST (POST /v1/ideas/generate) and MCP
// (suggest_ideas): what could be made, how many were asked for, and why there are fewer.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeSignal } from './helpers.js';
import { connect, fails, makeKey, ok, text } from './mcp-helpers.js';

let svc: TestService;
let client: Client;

beforeAll(async () => {
  svc = await startTestService('content');
  client = await connect(svc, (await makeKey(svc, ['read', 'write'])).key);
});
afterAll(async () => {
  await client.close();
  await svc.close();
});

const generate = (brandId: string, count: number) =>
  api(svc.url, 'POST', '/v1/ideas/generate', { body: { brand_id: brandId, count } });
const ideaCount = async (brandId: string) =>
  (await api(svc.url, 'GET', `/v1/ideas?brand_id=${brandId}&limit=100`)).body.ideas.length;
/** The same situation on two brands reads the same once the brand id is taken out. */
const neutral = (value: unknown, brandId: string) =>
  JSON.parse(JSON.stringify(value).replaceAll(brandId, 'BRAND'));

describe('idea suggestions that run dry', () => {
  it('REST: returns what could be made with a shortfall saying why; none made is a 409', async () => {
    // The simulated model finds two distinct titles in one signal of a one-product brand.
    const brand = await makeBrand(svc, { channels: [] });
    const signal = await makeSignal(svc, brand.id);
    const res = await generate(brand.id, 3);
    expect(res.status).toBe(201);
    expect(res.body.ideas).toHaveLength(2);
    expect(res.body.ideas.every((i: any) => i.signal.id === signal)).toBe(true);
    expect(res.body.requested).toBe(3);
    expect(res.body.shortfall).toEqual({
      count: 1,
      reason: 'SIGNALS_EXHAUSTED',
      message: expect.stringContaining(
        `Made 2 of 3 ideas: brand '${brand.id}' has 1 signal from the last 30 days`,
      ),
    });
    expect(res.body.shortfall.message).toContain(`POST /v1/brands/${brand.id}/signals`);

    const dry = await generate(brand.id, 3);
    expect(dry.status).toBe(409);
    expect(dry.body.error.code).toBe('SIGNALS_EXHAUSTED');
    expect(dry.body.error.message).toMatch(/^No new ideas could be made: .*POST \/v1\/brands\/.*\/signals/);
    expect(await ideaCount(brand.id)).toBe(2);

    // A new signal gives new ideas again, and a full answer has `shortfall: null`.
    await makeSignal(svc, brand.id, 'Written decisions beat meetings');
    const fresh = await generate(brand.id, 1);
    expect(fresh.status).toBe(201);
    expect(fresh.body).toMatchObject({ requested: 1, shortfall: null });
    expect(fresh.body.ideas).toHaveLength(1);
  });

  it('REST: a brand with no signals is a 409 NO_SIGNALS that says how to record one', async () => {
    const brand = await makeBrand(svc, { channels: [] });
    const res = await generate(brand.id, 3);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('NO_SIGNALS');
    expect(res.body.error.message).toContain(`POST /v1/brands/${brand.id}/signals`);
    expect(await ideaCount(brand.id)).toBe(0);
  });

  it('MCP suggest_ideas reports the same shortfall in its text and structuredContent as REST', async () => {
    const rest = await makeBrand(svc, { channels: [] });
    const mcp = await makeBrand(svc, { channels: [] });
    await makeSignal(svc, rest.id);
    await makeSignal(svc, mcp.id);
    const viaRest = (await generate(rest.id, 3)).body;

    const { data, text: said } = await ok(client, 'suggest_ideas', { brandId: mcp.id, count: 3 });
    expect(data.ideas).toHaveLength(viaRest.ideas.length);
    expect(data.requested).toBe(3);
    expect(neutral(data.shortfall, mcp.id)).toEqual(neutral(viaRest.shortfall, rest.id));
    const summary = said.split('\n')[0] ?? '';
    expect(summary).toContain('Suggested 2 ideas');
    expect(summary).toContain(
      `Shortfall SIGNALS_EXHAUSTED, 1 fewer than the 3 asked for: ${data.shortfall.message}`,
    );

    const restDry = (await generate(rest.id, 3)).body.error;
    const mcpDry = await fails(client, 'suggest_ideas', { brandId: mcp.id, count: 3 });
    expect(mcpDry).toContain(`Error SIGNALS_EXHAUSTED: ${restDry.message.replaceAll(rest.id, mcp.id)}`);
  });

  it('MCP suggest_ideas without signals fails as REST does, never "Suggested 0 ideas"', async () => {
    const brand = await makeBrand(svc, { channels: [] });
    const r = (await client.callTool({
      name: 'suggest_ideas',
      arguments: { brandId: brand.id },
    })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('Error NO_SIGNALS: ');
    expect(text(r)).not.toContain('Suggested 0');
    const rest = (await generate(brand.id, 3)).body.error;
    expect(text(r)).toContain(rest.message);
  });
});
