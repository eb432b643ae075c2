// Outside attack on requests and responses built on their app's own prototypes
// (platform/http/own-prototypes.ts): both APIs in one process, as `svc start` runs them, each
// request and response made with a class whose prototype IS the app's `request`/`response`.
// Anything written to such a prototype (rather than to the request) would be seen by every later
// request of that app, and a content prototype reachable from commerce would mix the two apps.
// A hostile client sends `__proto__`, `constructor` and `prototype` everywhere it can: JSON
// bodies (REST, MCP arguments, tool and prompt names, resource URIs), query strings, header names,
// path parameters. Afterwards no prototype on the way (Object's, express's, node:http's, each
// app's own) has gained, lost or changed a property, each app's prototypes still answer `req.app`
// with their own app, and both APIs answer the next ordinary request as before.
import { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Call, type Commerce, sandboxUser, startCommerce } from '../commerce/helpers.js';
import { makeKey, rawMcp } from '../content/mcp-helpers.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

// Computed keys: a literal's plain `__proto__:` sets its prototype instead of an own key.
const POISON = {
  ['__proto__']: { polluted: 'proto' },
  constructor: { prototype: { polluted: 'constructor' } },
  prototype: { polluted: 'prototype' },
};
// JSON text, so `__proto__` is an own key of the body as sent, not the literal's prototype.
const POISON_JSON =
  '{"__proto__":{"polluted":"proto"},"constructor":{"prototype":{"polluted":"c"}},"prototype":{"polluted":"p"}}';
const POISON_QUERY =
  '?__proto__[polluted]=q&__proto__.polluted=q&constructor[prototype][polluted]=q&prototype[polluted]=q&polluted=q';
const POISON_HEADERS = {
  ['__proto__']: 'h',
  constructor: 'h',
  prototype: 'h',
  hasOwnProperty: 'h',
  locals: 'h',
};

/** Every own property of `o`, with its value or accessor, to compare before and after. */
function snapshot(o: object): Map<string | symbol, unknown> {
  const out = new Map<string | symbol, unknown>();
  for (const key of Reflect.ownKeys(o)) {
    const d = Object.getOwnPropertyDescriptor(o, key) as PropertyDescriptor;
    out.set(key, [d.value, d.get, d.set, d.writable, d.enumerable, d.configurable]);
  }
  return out;
}

describe('requests on their app’s own prototypes, attacked with prototype keys', () => {
  let content: TestService;
  let commerce: Commerce;
  let key: string;
  let shopper: Call;

  beforeAll(async () => {
    content = await startTestService('content', { config: { seed: 'demo' } });
    commerce = await startCommerce();
    key = (await makeKey(content, ['read', 'write'])).key;
    shopper = (await sandboxUser(commerce.svc, commerce.sandboxKey)).call;
  });
  afterAll(async () => {
    await commerce?.close();
    await content?.close();
  });

  /** Each prototype a request or response of either app inherits from, and Object's. */
  function prototypes(): object[] {
    const out = new Set<object>([Object.prototype, Function.prototype, Array.prototype]);
    for (const app of [content.handle.app, commerce.svc.handle.app])
      for (let p: object | null = app.request; p; p = Object.getPrototypeOf(p)) out.add(p);
    for (const app of [content.handle.app, commerce.svc.handle.app])
      for (let p: object | null = app.response; p; p = Object.getPrototypeOf(p)) out.add(p);
    return [...out];
  }

  async function attack(): Promise<number[]> {
    const statuses: number[] = [];
    const contentCall = async (method: string, path: string, body?: string) => {
      const res = await fetch(`${content.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...POISON_HEADERS },
        ...(body === undefined ? {} : { body }),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    };
    for (const path of ['/v1/brands', '/v1/posts', '/v1/posts/__proto__', '/v1/brands/constructor'])
      await contentCall('GET', `${path}${POISON_QUERY}`);
    await contentCall('POST', `/v1/brands${POISON_QUERY}`, POISON_JSON);
    await contentCall('PATCH', '/v1/brands/__proto__', POISON_JSON);
    await contentCall('POST', '/v1/api-keys', JSON.stringify({ name: 'k', scopes: ['read'], ...POISON }));
    const brandId = (await api(content.url, 'GET', '/v1/brands')).body.brands[0].id as string;
    await contentCall('PATCH', `/v1/brands/${brandId}/memory`, POISON_JSON);

    const mcp = async (method: string, params: unknown) => {
      const res = await rawMcp(content, {
        key,
        headers: POISON_HEADERS,
        body: `{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(method)},"params":${JSON.stringify(params)},"__proto__":{"polluted":"rpc"}}`,
      });
      statuses.push(res.status);
    };
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'list_brands'])
      await mcp('tools/call', JSON.parse(`{"name":"${name}","arguments":${POISON_JSON}}`));
    await mcp('tools/call', JSON.parse(`{"name":"get_brand_memory","arguments":{"brandId":"__proto__"}}`));
    await mcp('prompts/get', JSON.parse(`{"name":"__proto__","arguments":${POISON_JSON}}`));
    await mcp('resources/read', { uri: 'service://brands/__proto__/memory' });
    await mcp('__proto__', JSON.parse(POISON_JSON));

    const shop = shopper;
    for (const path of [
      '/v1/checkouts/__proto__',
      `/v1/checkouts${POISON_QUERY}`,
      '/v1/merchants/constructor',
    ])
      statuses.push((await shop('GET', path, undefined, POISON_HEADERS)).status);
    statuses.push(
      (await shop('POST', '/v1/sandbox/public_token', JSON.parse(POISON_JSON), POISON_HEADERS)).status,
    );
    statuses.push((await shop('POST', '/v1/checkouts', JSON.parse(POISON_JSON), POISON_HEADERS)).status);
    statuses.push(
      (await as(commerce.svc, null)('POST', '/v1/checkouts', POISON_JSON, POISON_HEADERS)).status,
    );
    return statuses;
  }

  it('leaves every prototype as it was and never answers 500', async () => {
    // One ordinary request each first, so whatever is built lazily on first use is built.
    expect((await api(content.url, 'GET', '/v1/brands')).status).toBe(200);
    expect((await shopper('GET', '/v1/checkouts/chk_none')).status).toBe(404);
    const before = prototypes().map(snapshot);

    const statuses = await attack();
    expect(statuses.filter((s) => s >= 500)).toEqual([]);

    const after = prototypes().map(snapshot);
    for (const [i, snap] of before.entries()) expect(after[i]).toEqual(snap);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
  });

  it('keeps each app’s prototypes its own: req.app is the app that serves it, never the other', () => {
    const [c, m] = [content.handle.app, commerce.svc.handle.app];
    expect(c.request === m.request).toBe(false);
    expect(c.response === m.response).toBe(false);
    expect((c.request as { app: unknown }).app).toBe(c);
    expect((m.request as { app: unknown }).app).toBe(m);
    expect((c.response as { app: unknown }).app).toBe(c);
    expect((m.response as { app: unknown }).app).toBe(m);
    // Neither app's prototype is on the other's chain, and both still end at node:http's.
    const chain = (p: object | null) => {
      const out: object[] = [];
      for (; p; p = Object.getPrototypeOf(p)) out.push(p);
      return out;
    };
    // Booleans, not toContain: chai's include message inspects the prototype it looks for, and on
    // Node 24 that reads IncomingMessage.prototype's `signal` getter, which throws off an instance.
    expect(chain(c.request).includes(m.request)).toBe(false);
    expect(chain(m.request).includes(c.request)).toBe(false);
    expect(chain(c.response).includes(m.response)).toBe(false);
    expect(chain(c.request).includes(IncomingMessage.prototype)).toBe(true);
    expect(chain(m.response).includes(ServerResponse.prototype)).toBe(true);
    // No request state lives on a prototype: only `app` (and the class's constructor) is there.
    for (const proto of [c.request, c.response, m.request, m.response])
      expect(Reflect.ownKeys(proto).sort()).toEqual(['app', 'constructor']);
  });

  it('answers the next ordinary requests as before, each with its own request id', async () => {
    const ids = new Set<string | null>();
    for (let i = 0; i < 3; i++) {
      const brands = await fetch(`${content.url}/v1/brands`);
      expect(brands.status).toBe(200);
      const body = (await brands.json()) as Record<string, unknown>;
      expect(body.polluted).toBeUndefined();
      ids.add(brands.headers.get('service-request-id'));
      const missing = await shopper('GET', '/v1/checkouts/chk_none');
      expect(missing.status).toBe(404);
      expect(missing.body.error?.code ?? missing.body.code).toBeTruthy();
      ids.add(missing.headers.get('service-request-id'));
    }
    expect(ids.size).toBe(6);
    expect([...ids].every((id) => typeof id === 'string' && /^req_/.test(id))).toBe(true);
  });
});
