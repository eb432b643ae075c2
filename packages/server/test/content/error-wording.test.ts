// How errors read, over real HTTP: MCP names arguments as the tool takes them, and no message
// anywhere (REST errors, MCP tool errors, voice-check results) doubles its closing punctuation.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeDraft } from './helpers.js';
import { connect, fails, makeKey, ok, text } from './mcp-helpers.js';

let svc: TestService;
let client: Client;
let doc: any;
const messages: { where: string; message: string }[] = [];

beforeAll(async () => {
  svc = await startTestService('content', { config: { seed: 'demo' } });
  client = await connect(svc, (await makeKey(svc, ['read', 'write'])).key);
  doc = (await api(svc.url, 'GET', '/v1/openapi.json')).body;
});
afterAll(async () => {
  await client.close();
  await svc.close();
});

/** `..`, or a full stop after other closing punctuation (`?.`, `!.`, `:.`): a sentence ended twice. */
const DOUBLED = /\.\.|[?!:;,]\.(?=\s|$)/;

async function rest(method: string, path: string, body?: unknown) {
  const res = await api(svc.url, method, path, body === undefined ? {} : { body });
  if (res.body?.error?.message)
    messages.push({ where: `${method} ${path}`, message: res.body.error.message });
  return res;
}

async function tool(name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) messages.push({ where: `mcp ${name} ${JSON.stringify(args)}`, message: text(r) });
  return r;
}

/** A value of the wrong type for a JSON Schema property. */
const wrong = (schema: any) => (schema?.type === 'string' || schema?.enum ? 12345 : 'not-that');

const fill = (path: string, id: string) =>
  path.replace(/\{[A-Za-z]+\}/g, id).replace(`/versions/${id}`, '/versions/1');

describe('MCP errors name arguments as the tool takes them', () => {
  it('propose_post in the past names proposedFor, never proposed_for', async () => {
    const brand = await makeBrand(svc, { channels: ['linkedin'] });
    const idea = await ok(client, 'create_idea', { brandId: brand.id, title: 'Decision logs, one year in' });
    const [draft] = (await ok(client, 'draft_idea', { ideaId: idea.data.idea.id, platforms: ['linkedin'] }))
      .data.drafts;
    const past = await fails(client, 'propose_post', {
      draftId: draft.id,
      proposedFor: '2001-01-01T00:00:00Z',
    });
    expect(past).toContain('Error SLOT_IN_PAST: ');
    expect(past).toContain("'proposedFor'");
    expect(past).not.toContain('proposed_for');
    // The same service error over REST keeps the REST name.
    const viaRest = await rest('POST', '/v1/approvals', {
      draft_id: draft.id,
      proposed_for: '2001-01-01T00:00:00Z',
    });
    expect(viaRest.body.error).toMatchObject({ code: 'SLOT_IN_PAST', param: 'proposed_for' });
    expect(viaRest.body.error.message).toContain("'proposed_for'");
  });

  it('no tool error names an argument in snake_case when the tool takes it in camelCase', async () => {
    const listed = await client.listTools();
    for (const t of listed.tools) {
      const props = Object.keys((t.inputSchema as any).properties ?? {});
      const snake = props
        .filter((p) => /[A-Z]/.test(p))
        .map((p) => p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
      const calls: Record<string, unknown>[] = [{}, { zz_unknown: 1 }];
      for (const p of props)
        calls.push({ [p]: p.endsWith('Id') ? 'zz_missing' : wrong((t.inputSchema as any).properties[p]) });
      for (const args of calls) {
        const r = await tool(t.name, args);
        if (!r.isError) continue;
        for (const s of snake) expect(text(r), `${t.name} ${JSON.stringify(args)}`).not.toContain(`'${s}`);
      }
    }
  });
});

describe('no message ends a sentence twice', () => {
  it('sweeps bad input over every JSON route', async () => {
    const brandId = (await api(svc.url, 'GET', '/v1/brands')).body.brands[0].id;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        if (!schema || path.startsWith('/oauth')) continue;
        const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
        const bodies: unknown[] = [{ zz_unknown: 1 }, [1, 2], {}];
        for (const [p, s] of Object.entries(resolved?.properties ?? {})) bodies.push({ [p]: wrong(s) });
        for (const id of ['zz_missing', brandId])
          for (const body of bodies) await rest(method.toUpperCase(), fill(path, id), body);
      }
    }
    expect(messages.length).toBeGreaterThan(200);
  });

  it('agent failures and refused inputs, over REST and MCP', async () => {
    const brand = await makeBrand(svc, { channels: ['x'] });
    const post = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'Not a winner yet.' },
    });
    const run = await rest('POST', '/v1/agents/repurpose_winner/runs', { inputs: { postId: post.body.id } });
    messages.push({ where: 'run error', message: run.body.error.message });
    await tool('run_agent', { agentId: 'repurpose_winner', inputs: { postId: post.body.id } });
    await tool('run_agent', { agentId: 'digest', inputs: { brandId: brand.id, days: 500 } });
    await tool('run_agent', { agentId: 'digest', inputs: {} });
    await rest('POST', '/v1/automations', {
      brand_id: brand.id,
      name: 'Too far back',
      agent_id: 'digest',
      inputs: { days: 500 },
      trigger: { type: 'schedule', every: 'day', hour: 6 },
    });
    await tool('suggest_ideas', { brandId: brand.id });
    expect(
      messages.some((m) => m.where.startsWith('mcp run_agent') && m.message.includes('NOT_A_WINNER')),
    ).toBe(true);
  });

  it('voice-check results quoting a banned word that ends in a full stop', async () => {
    const brand = await makeBrand(svc, { channels: ['x'] });
    await api(svc.url, 'PATCH', `/v1/brands/${brand.id}`, {
      body: { memory: { voice: { banned_words: ['etc.'] } } },
    });
    const draft = await makeDraft(svc, brand.id, 'x', 'Standups, retros, planning etc. all in writing now.');
    const run = await api(svc.url, 'POST', '/v1/agents/voice_check/runs', {
      body: { inputs: { draftId: draft } },
    });
    const banned = run.body.output.checks.find((c: any) => c.id === 'banned_words');
    expect(banned.status).toBe('fail');
    for (const c of run.body.output.checks)
      messages.push({ where: `voice check ${c.id}`, message: c.message });
  });

  it('none of the messages collected doubles its closing punctuation', () => {
    const doubled = messages.filter((m) => DOUBLED.test(m.message));
    expect(doubled).toEqual([]);
  });
});
