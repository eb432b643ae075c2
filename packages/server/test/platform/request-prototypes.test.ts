import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Commerce, sandboxUser, startCommerce } from '../commerce/helpers.js';
import { makeKey, rawMcp } from '../content/mcp-helpers.js';
import { startTestService, type TestService } from '../helpers/start.js';
import { whileWatched } from '../helpers/while-watched.js';

/**
 * Every request and response is made with its app's own prototypes (platform/http/own-prototypes),
 * so express's `Object.setPrototypeOf` in `app.handle` moves nothing. Moving them gave each
 * response its own V8 hidden class and promoted ~10 KB per request to the old generation: 70-90 MB
 * of a busy server's peak RSS (docs/benchmarks/history.md, seventh pass: memory). Counted, not timed:
 * the calls that give an object a prototype it did not have, over real HTTP to a real server.
 */
async function prototypeMoves(during: () => Promise<void>): Promise<number> {
  let moves = 0;
  await whileWatched(
    Object,
    'setPrototypeOf',
    (o: object, proto: object | null) => {
      if (Object.getPrototypeOf(o) !== proto) moves++;
    },
    during,
  );
  return moves;
}

describe('requests keep the prototypes they were made with', () => {
  let commerce: Commerce;
  let content: TestService;
  beforeAll(async () => {
    commerce = await startCommerce();
    content = await startTestService('content');
  });
  afterAll(async () => {
    await commerce?.close();
    await content?.close();
  });

  it('an authorised checkout lookup, its 404 and an unknown path move no request or response', async () => {
    const user = await sandboxUser(commerce.svc, commerce.sandboxKey);
    const answers: number[] = [];
    const moves = await prototypeMoves(async () => {
      for (let i = 0; i < 5; i++) {
        answers.push((await user.call('GET', '/v1/checkouts/chk_missing')).status);
        answers.push((await fetch(`${commerce.svc.url}/v1/nothing-here`)).status);
      }
    });
    expect(answers).toEqual(Array(5).fill([404, 404]).flat());
    expect(moves).toBe(0);
  });

  it('the content API (REST and MCP) moves none either, and express still gives req.app and its helpers', async () => {
    const key = (await makeKey(content, ['read'])).key;
    const statuses: number[] = [];
    let requestId: string | null = null;
    let agents: unknown;
    const moves = await prototypeMoves(async () => {
      const brands = await fetch(`${content.url}/v1/brands`);
      statuses.push(brands.status);
      requestId = brands.headers.get('service-request-id');
      const call = await rawMcp(content, {
        key,
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_agents', arguments: {} } },
      });
      statuses.push(call.status);
      agents = call.body.result?.isError;
    });
    expect(statuses).toEqual([200, 200]);
    expect(agents).toBeFalsy();
    expect(requestId).toMatch(/^req_/);
    expect(moves).toBe(0);
  });
});
