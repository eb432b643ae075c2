import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataJson } from '../../src/content/mcp/call-tool.js';
import { deepFrozen } from '../../src/content/mcp/tool.js';
import { listAgentsTool } from '../../src/content/mcp/tools/agents.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { LABEL, listAgentsCall, makeKey } from './mcp-helpers.js';

/*
 * list_agents' answer and `GET /v1/agents` are one list, built once (the built-in agents are
 * constants of the build) with its JSON kept (issue 20). These tests tie both to
 * `GET /v1/agents/{id}`, which builds its agent from the definitions on every request, so a
 * change to an agent that the kept list missed shows up here.
 */
describe('list_agents built once', () => {
  let svc: TestService;
  let key: string;
  beforeAll(async () => {
    svc = await startTestService('content');
    key = (await makeKey(svc, ['read'])).key;
  });
  afterAll(() => svc?.close());

  it('answers with the agents GET /v1/agents lists, and a summary naming each with its inputs', async () => {
    const rest = await api(svc.url, 'GET', '/v1/agents');
    expect(rest.status).toBe(200);
    const agents = rest.body.agents as { id: string; inputs: { name: string; required: boolean }[] }[];
    expect(agents.length).toBeGreaterThan(0);

    const first = await listAgentsCall(svc, key);
    expect(first.status).toBe(200);
    const { result } = first.body;
    expect(result.isError, first.raw.slice(0, 300)).toBeUndefined();
    expect(result.structuredContent).toEqual({ mode_label: LABEL, agents });
    expect(JSON.parse(result.content[1].text)).toEqual(result.structuredContent);
    const named = agents.map(
      (a) => `${a.id} (${a.inputs.map((i) => `${i.name}${i.required ? '' : '?'}`).join(', ')})`,
    );
    expect(result.content[0].text).toBe(`${LABEL} ${agents.length} agents: ${named.join('; ')}.`);

    // Later calls give the same bytes, after a REST read between them.
    await api(svc.url, 'GET', '/v1/agents');
    for (let i = 0; i < 3; i++) expect((await listAgentsCall(svc, key)).raw).toBe(first.raw);
  });

  it('GET /v1/agents lists what GET /v1/agents/{id} builds anew for each agent, every time', async () => {
    const first = await fetch(`${svc.url}/v1/agents`);
    expect(first.status).toBe(200);
    const text = await first.text();
    const { agents } = JSON.parse(text) as { agents: { id: string }[] };
    const fresh = await Promise.all(agents.map((a) => api(svc.url, 'GET', `/v1/agents/${a.id}`)));
    expect(fresh.map((r) => r.status)).toEqual(agents.map(() => 200));
    expect(agents).toEqual(fresh.map((r) => r.body));
    // The kept JSON is sent, the same bytes on every request, and still the list MCP gives.
    for (let i = 0; i < 3; i++) expect(await (await fetch(`${svc.url}/v1/agents`)).text()).toBe(text);
    const mcp = await listAgentsCall(svc, key);
    expect(mcp.body.result.structuredContent.agents).toEqual(agents);
  });

  it('cannot be changed in place: the kept answer is frozen all the way down', async () => {
    const run = (listAgentsTool.run as () => Promise<{ summary: string; data: any }>).bind(listAgentsTool);
    const a = await run();
    expect(await run()).toBe(a);
    const agent = a.data.agents[0];
    for (const value of [a, a.data, a.data.agents, agent, agent.inputs, agent.inputs[0], agent.steps])
      expect(Object.isFrozen(value)).toBe(true);
    expect(() => {
      agent.name = 'changed';
    }).toThrow(TypeError);
    expect(() => a.data.agents.push(agent)).toThrow(TypeError);
  });
});

describe("a frozen answer's JSON is kept, per mode label", () => {
  it('keeps JSON only for data deepFrozen made: a shallow freeze leaves what is inside open', () => {
    const shallow = Object.freeze({ items: [{ id: 'a' }] });
    expect(dataJson('(live)', shallow)).toBe('{"mode_label":"(live)","items":[{"id":"a"}]}');
    shallow.items.push({ id: 'b' });
    expect(dataJson('(live)', shallow)).toBe('{"mode_label":"(live)","items":[{"id":"a"},{"id":"b"}]}');
  });

  it('gives each label its own JSON, and JSON made anew for data that is not frozen', () => {
    const frozen = deepFrozen({ items: [{ id: 'a', text: 'one "two"' }] });
    const of = (label: string, data: object) => JSON.stringify({ mode_label: label, ...data });
    expect(dataJson('(sandbox · simulated)', frozen)).toBe(of('(sandbox · simulated)', frozen));
    expect(dataJson('(live)', frozen)).toBe(of('(live)', frozen));
    expect(dataJson('(sandbox · simulated)', frozen)).toBe(of('(sandbox · simulated)', frozen));

    const open = { items: [{ id: 'a', text: 'one' }] };
    expect(dataJson('(live)', open)).toBe(of('(live)', open));
    (open.items[0] as { text: string }).text = 'two';
    expect(dataJson('(live)', open)).toBe(of('(live)', open));
  });
});
