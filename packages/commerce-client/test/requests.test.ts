// What each method puts on the wire: method, path, body and the headers the commerce API reads.
// The core's own behaviour (query encoding, header merging, ...) is tested in client-core.
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { CommerceClient, MissingUserTokenError, VERSION } from '../src/index.js';
import { BASE, KEY, makeClient, seen, server, USER, useServer } from './helpers.js';

useServer();

/** Answers everything with `{}` (201 for POST) and a request id, so request shapes can be read. */
function echoAll(): void {
  server.use(
    http.all(`${BASE}/*`, ({ request }) =>
      HttpResponse.json(
        { merchants: [], orders: [], connections: [], has_more: false, next_after: null },
        { status: request.method === 'POST' ? 201 : 200, headers: { 'service-request-id': 'req_echo' } },
      ),
    ),
  );
}

type Call = (c: CommerceClient) => PromiseLike<unknown>;
const ADDRESS = { name: 'Ada', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' };

// [name, call, method, path, body (undefined = none), user-scoped]
const CALLS: Array<[string, Call, string, string, unknown, boolean]> = [
  [
    'merchants.list',
    (c) => c.merchants.list({ q: 'tea', limit: 5 }),
    'GET',
    '/merchants?q=tea&limit=5',
    undefined,
    false,
  ],
  [
    'merchants.retrieve',
    (c) => c.merchants.retrieve('sandbox protocol'),
    'GET',
    '/merchants/sandbox%20protocol',
    undefined,
    false,
  ],
  [
    'approvalTokens.create',
    (c) => c.approvalTokens.create({ client_user_id: 'u1', redirect_uri: 'https://app.example/cb' }),
    'POST',
    '/approval_tokens',
    { client_user_id: 'u1', redirect_uri: 'https://app.example/cb' },
    false,
  ],
  [
    'approvalTokens.exchange',
    (c) => c.approvalTokens.exchange({ public_token: 'public-1' }),
    'POST',
    '/approval_tokens/exchange',
    { public_token: 'public-1' },
    false,
  ],
  [
    'offers.create',
    (c) => c.offers.create({ url: 'https://s.test/p' }),
    'POST',
    '/offers',
    { url: 'https://s.test/p' },
    false,
  ],
  ['offers.retrieve', (c) => c.offers.retrieve('ofr_1'), 'GET', '/offers/ofr_1', undefined, false],
  [
    'checkouts.create',
    (c) => c.checkouts.create({ offer_id: 'ofr_1', quantity: 2, shipping_address: ADDRESS }),
    'POST',
    '/checkouts',
    { offer_id: 'ofr_1', quantity: 2, shipping_address: ADDRESS },
    true,
  ],
  ['checkouts.retrieve', (c) => c.checkouts.retrieve('chk_1'), 'GET', '/checkouts/chk_1', undefined, true],
  [
    'checkouts.update',
    (c) => c.checkouts.update('chk_1', { buyer: { email: 'a@example.com' } }),
    'POST',
    '/checkouts/chk_1/update',
    { buyer: { email: 'a@example.com' } },
    true,
  ],
  [
    'checkouts.confirm',
    (c) => c.checkouts.confirm('chk_1'),
    'POST',
    '/checkouts/chk_1/confirm',
    undefined,
    true,
  ],
  [
    'checkouts.userInput',
    (c) => c.checkouts.userInput('chk_1', { fields: { code: '424242' } }),
    'POST',
    '/checkouts/chk_1/user_input',
    { fields: { code: '424242' } },
    true,
  ],
  [
    'checkouts.cancel',
    (c) => c.checkouts.cancel('chk_1'),
    'POST',
    '/checkouts/chk_1/cancel',
    undefined,
    true,
  ],
  ['orders.list', (c) => c.orders.list(), 'GET', '/orders', undefined, true],
  ['orders.retrieve', (c) => c.orders.retrieve('ord_1'), 'GET', '/orders/ord_1', undefined, true],
  ['connections.list', (c) => c.connections.list(), 'GET', '/connections', undefined, true],
  [
    'webhookEndpoints.create',
    (c) => c.webhookEndpoints.create({ url: 'https://app.example/hooks' }),
    'POST',
    '/webhook_endpoints',
    { url: 'https://app.example/hooks' },
    false,
  ],
  ['sandbox.publicToken', (c) => c.sandbox.publicToken(), 'POST', '/sandbox/public_token', {}, false],
  [
    'sandbox.createConnection',
    (c) => c.sandbox.createConnection({ merchant_id: 'sandbox-members', status: 'needs_user' }),
    'POST',
    '/sandbox/connections',
    { merchant_id: 'sandbox-members', status: 'needs_user' },
    true,
  ],
  [
    'sandbox.completeAction',
    (c) => c.sandbox.completeAction('chk_1'),
    'POST',
    '/sandbox/checkouts/chk_1/complete_action',
    undefined,
    true,
  ],
  [
    'sandbox.userConfirm',
    (c) => c.sandbox.userConfirm('chk_1'),
    'POST',
    '/sandbox/checkouts/chk_1/user_confirm',
    undefined,
    true,
  ],
  [
    'sandbox.merchantComplete',
    (c) => c.sandbox.merchantComplete('chk_1'),
    'POST',
    '/sandbox/checkouts/chk_1/merchant_complete',
    undefined,
    true,
  ],
  [
    'sandbox.advanceOrder',
    (c) => c.sandbox.advanceOrder('ord_1'),
    'POST',
    '/sandbox/orders/ord_1/advance',
    {},
    true,
  ],
  ['health.check', (c) => c.health.check(), 'GET', '/health', undefined, false],
  // The deprecated `get` aliases send exactly what `retrieve` sends.
  ['merchants.get (deprecated)', (c) => c.merchants.get('m 1'), 'GET', '/merchants/m%201', undefined, false],
  ['offers.get (deprecated)', (c) => c.offers.get('ofr_1'), 'GET', '/offers/ofr_1', undefined, false],
  ['checkouts.get (deprecated)', (c) => c.checkouts.get('chk_1'), 'GET', '/checkouts/chk_1', undefined, true],
  ['orders.get (deprecated)', (c) => c.orders.get('ord_1'), 'GET', '/orders/ord_1', undefined, true],
];

describe.each(CALLS)('%s', (_name, call, method, path, body, userScoped) => {
  it(`sends ${method} ${path}`, async () => {
    echoAll();
    const { user } = makeClient();
    await call(user);
    expect(seen).toHaveLength(1);
    const request = seen[0] as Request;
    expect(request.method).toBe(method);
    expect(request.url).toBe(`${BASE}${path}`);
    expect(request.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(request.headers.get('service-user-token')).toBe(USER);
    const text = await request.text();
    if (body === undefined) {
      expect(text).toBe('');
      expect(request.headers.get('content-type')).toBeNull();
    } else {
      expect(JSON.parse(text)).toEqual(body);
      expect(request.headers.get('content-type')).toBe('application/json');
    }
    // Every POST is safe to retry: it carries a key, a fresh UUID unless the caller gave one.
    if (method === 'POST') expect(request.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    else expect(request.headers.get('idempotency-key')).toBeNull();
  });

  it(
    userScoped
      ? 'without a user token, rejects with MissingUserTokenError and sends nothing'
      : 'needs no user token',
    async () => {
      echoAll();
      const { client } = makeClient();
      if (!userScoped) {
        await call(client);
        expect(seen[0]?.headers.get('service-user-token')).toBeNull();
        return;
      }
      const error = await Promise.resolve(call(client)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MissingUserTokenError);
      expect((error as Error).message).toMatch(/client\.forUser\(userToken\)/);
      expect(seen).toHaveLength(0);
    },
  );
});

describe('the client', () => {
  it('identifies itself with Service-Client and asks for JSON', async () => {
    echoAll();
    await new CommerceClient({ baseUrl: BASE, apiKey: KEY }).health.check();
    expect(seen[0]?.headers.get('service-client')).toBe(`@svc/commerce-client/${VERSION}`);
    expect(seen[0]?.headers.get('accept')).toBe('application/json');
  });

  it('takes the API key from SERVICE_API_KEY when none is given', async () => {
    echoAll();
    vi.stubEnv('SERVICE_API_KEY', 'svc_test_fromenv');
    try {
      await new CommerceClient({ baseUrl: BASE }).merchants.retrieve('m');
    } finally {
      vi.unstubAllEnvs();
    }
    await new CommerceClient({ baseUrl: BASE, apiKey: 'svc_test_given' }).merchants.retrieve('m');
    expect(seen.map((r) => r.headers.get('authorization'))).toEqual([
      'Bearer svc_test_fromenv',
      'Bearer svc_test_given',
    ]);
  });

  it('sends no Authorization header when there is no key at all (health needs none)', async () => {
    echoAll();
    vi.stubEnv('SERVICE_API_KEY', '');
    try {
      await new CommerceClient({ baseUrl: BASE }).health.check();
    } finally {
      vi.unstubAllEnvs();
    }
    expect(seen[0]?.headers.get('authorization')).toBeNull();
  });

  it('withOptions changes options and keeps the rest, the user token included', async () => {
    echoAll();
    const user = new CommerceClient({ baseUrl: BASE, apiKey: KEY }).forUser(USER);
    await user.withOptions({ defaultHeaders: { 'x-region': 'eu' } }).orders.retrieve('ord_1');
    expect(seen[0]?.headers.get('x-region')).toBe('eu');
    expect(seen[0]?.headers.get('service-user-token')).toBe(USER);
  });

  it('refuses an empty user token and a base URL that is not a URL', () => {
    expect(() => new CommerceClient({ baseUrl: BASE, apiKey: KEY }).forUser('')).toThrow(TypeError);
    expect(() => new CommerceClient({ baseUrl: 'commerce.test/v1', apiKey: KEY })).toThrow(TypeError);
  });

  // The spec's base URL is the service root; the routes are under /v1. Every spelling works.
  it.each([
    'https://commerce.test',
    'https://commerce.test/',
    'https://commerce.test/v1',
    'https://commerce.test/v1/',
  ])('accepts baseUrl %s, with or without /v1 and a trailing slash', async (baseUrl) => {
    echoAll();
    const client = new CommerceClient({ baseUrl, apiKey: KEY });
    await client.health.check();
    await client.withOptions({ baseUrl }).forUser(USER).orders.retrieve('ord_1');
    expect(seen.map((r) => r.url)).toEqual([`${BASE}/health`, `${BASE}/orders/ord_1`]);
  });

  it('forUser keeps the key and options and only adds the user token', async () => {
    echoAll();
    const client = new CommerceClient({
      baseUrl: BASE,
      apiKey: KEY,
      defaultHeaders: { 'x-tenant': 't1' },
    });
    await client.forUser('user-a').orders.list();
    await client.forUser('user-b').orders.list();
    expect(seen.map((r) => [r.headers.get('service-user-token'), r.headers.get('x-tenant')])).toEqual([
      ['user-a', 't1'],
      ['user-b', 't1'],
    ]);
  });

  it('uses the caller’s idempotency key and reports a replay', async () => {
    server.use(
      http.post(`${BASE}/checkouts/chk_1/confirm`, () =>
        HttpResponse.json(
          { id: 'chk_1', status: 'completed' },
          { headers: { 'service-request-id': 'req_9', 'idempotent-replayed': 'true' } },
        ),
      ),
    );
    const { user } = makeClient();
    const { data, requestId, idempotentReplayed, response } = await user.checkouts
      .confirm('chk_1', { idempotencyKey: 'purchase-42' })
      .withResponse();
    expect(seen[0]?.headers.get('idempotency-key')).toBe('purchase-42');
    expect(data.status).toBe('completed');
    expect(requestId).toBe('req_9');
    expect(idempotentReplayed).toBe(true);
    expect(response.status).toBe(200);
  });

  it('gives each call its own generated idempotency key', async () => {
    echoAll();
    const { user } = makeClient();
    await user.checkouts.cancel('chk_1');
    await user.checkouts.cancel('chk_1');
    const [a, b] = seen.map((r) => r.headers.get('idempotency-key'));
    expect(a).not.toBe(b);
  });

  it('whole lists are lazy: nothing is sent until awaited, and a missing user token rejects then', async () => {
    echoAll();
    const { client, user } = makeClient();
    const orders = user.orders.list();
    const connections = client.connections.list();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toHaveLength(0);
    await expect(connections).rejects.toBeInstanceOf(MissingUserTokenError);
    expect((await orders).has_more).toBe(false);
    expect(seen.map((r) => new URL(r.url).pathname)).toEqual(['/v1/orders']);
  });

  it('a paged list answers withResponse() with its first page and response', async () => {
    echoAll();
    const { client } = makeClient();
    const { data, requestId, response } = await client.merchants.list({ limit: 1 }).withResponse();
    expect(data).toMatchObject({ merchants: [], items: [], has_more: false });
    expect(requestId).toBe('req_echo');
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('passes per-call headers and lets a whole list answer with its response', async () => {
    echoAll();
    const { user } = makeClient();
    const { data, requestId } = await user.orders.list({ headers: { 'x-trace': 'abc' } }).withResponse();
    expect(seen[0]?.headers.get('x-trace')).toBe('abc');
    expect(requestId).toBe('req_echo');
    expect(data).toMatchObject({ orders: [], items: [], has_more: false, next_after: null });
  });
});
