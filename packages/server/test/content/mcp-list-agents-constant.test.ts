import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataJson } from '../../src/content/mcp/call-tool.js';
import { deepFrozen } from '../../src/content/mcp/tool.js';
import { listAgentsTool } from '../../src/content/mcp/tools/agents.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { LABEL, listAgentsCall, makeKey } from './mcp-helpers.js';

/*
 * list_agents' answer is built once (the built-in agents are constants of the build) and its
 * JSON kept (issue 20). These tests tie it to `GET /v1/agents`, the REST list built on every
 * request, so a change to an agent that the constant missed shows up here.
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
