// A whole sandbox purchase through the client alone, against a real @svc/server on a temporary
// data directory: no fetch calls of our own, no reaching into the server's internals beyond
// minting the API key.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCommerceApiKey,
  createCommerceApp,
  type Listening,
  listen,
  ManualClock,
  randomIds,
  silentLogger,
  testConfig,
} from '@svc/server';
import { createTestEngineDatabase, type TestEngineDatabase } from '@svc/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  type Checkout,
  CommerceClient,
  ConflictError,
  MissingUserTokenError,
  NotFoundError,
  UnprocessableEntityError,
} from '../src/index.js';

let listening: Listening;
let dataDir: string;
// SQLite in dataDir, or a fresh PostgreSQL database when SVC_TEST_DATABASE=postgres.
let database: TestEngineDatabase;
let client: CommerceClient;
let baseUrl: string;

const ADDRESS = {
  name: 'Ada Lovelace',
  line1: '1 Main St',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62701',
  country: 'us',
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-commerce-client-'));
  database = await createTestEngineDatabase();
  const clock = new ManualClock();
  const handle = await createCommerceApp({
    config: testConfig({ dataDir, ...database.config }),
    clock,
    ids: randomIds,
    logger: silentLogger(),
  });
  const { key } = await createCommerceApiKey(
    handle.db,
    { clock, ids: randomIds },
    { env: 'sandbox', name: 'Commerce client tests' },
  );
  listening = await listen(handle, '127.0.0.1', 0);
  baseUrl = `${listening.url}/v1`;
  client = new CommerceClient({ baseUrl, apiKey: key });
});

afterAll(async () => {
  await listening?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

/** A fresh sandbox user through the shortcut: public token, then the real exchange. */
async function sandboxUser(clientUserId: string) {
  const { public_token } = await client.sandbox.publicToken({ client_user_id: clientUserId });
  const { user_token, user_id } = await client.approvalTokens.exchange({ public_token });
  return { user: client.forUser(user_token), userId: user_id };
}

describe('a sandbox purchase, through the client alone', () => {
  it('goes from a user token to an order read back', async () => {
    expect(await client.health.check()).toEqual({ ok: true });

    // 1. A user token through the sandbox shortcut.
    const { user, userId } = await sandboxUser('ada');
    expect(userId).toMatch(/^usr_/);

    // 2. An offer for a product whose store asks for a one-time code.
    const offer = await client.offers.create({
      url: 'https://protocol-shop.sandbox.test/products/requires-action-kettle',
    });
    expect(offer).toMatchObject({ id: expect.stringMatching(/^ofr_/), merchant_id: 'sandbox-protocol' });
    expect(await client.offers.retrieve(offer.id)).toEqual(offer);

    // 3. The checkout.
    const created = await user.checkouts.create({
      offer_id: offer.id,
      buyer: { email: 'ada@example.com' },
      shipping_address: ADDRESS,
    });
    expect(created.status).toBe('requires_user_action');
    expect(created.next_action).toMatchObject({ type: 'one_time_code', fields: [{ name: 'code' }] });
    expect(created.shipping_address?.country).toBe('US');

    // 4. The user's code.
    const wrong = await user.checkouts
      .userInput(created.id, { fields: { code: '000000' } })
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(UnprocessableEntityError);
    expect(wrong).toMatchObject({ status: 422, code: 'USER_INPUT_REJECTED' });
    await user.checkouts.userInput(created.id, { fields: { code: '424242' } });

    // 5. Wait until the app must act again.
    const statuses: Checkout['status'][] = [];
    const ready = await user.checkouts.waitFor(created.id, {
      intervalMs: 50,
      onUpdate: (c) => {
        statuses.push(c.status);
      },
    });
    expect(ready.status).toBe('ready_to_confirm');
    expect(statuses).toEqual(['ready_to_confirm']);
    expect(ready.totals.total.amount).toBeGreaterThan(0);

    // 6. Confirm with our own idempotency key; repeating it replays the stored answer.
    const idempotencyKey = `purchase-${created.id}`;
    const confirmed = await user.checkouts.confirm(created.id, { idempotencyKey }).withResponse();
    expect(confirmed.data.status).toBe('completed');
    expect(confirmed.idempotentReplayed).toBe(false);
    expect(confirmed.requestId).toBeTruthy();
    const again = await user.checkouts.confirm(created.id, { idempotencyKey }).withResponse();
    expect(again.idempotentReplayed).toBe(true);
    expect(again.data).toEqual(confirmed.data);
    // A new key is a new request, and a completed checkout cannot be confirmed twice.
    await expect(user.checkouts.confirm(created.id)).rejects.toMatchObject({
      constructor: ConflictError,
      code: 'CHECKOUT_STATE_INVALID',
    });

    // 7. The order, read back.
    const orderId = confirmed.data.order_id;
    if (!orderId) throw new Error('a completed checkout has an order_id');
    const order = await user.orders.retrieve(orderId);
    expect(order).toMatchObject({ id: orderId, checkout_id: created.id, user_id: userId, status: 'placed' });
    expect(order.totals).toEqual(confirmed.data.totals);
    const listed = [];
    for await (const o of user.orders.list()) listed.push(o.id);
    expect(listed).toEqual([orderId]);

    // And the sandbox moves it on.
    expect((await user.sandbox.advanceOrder(orderId)).status).toBe('shipped');
    expect((await user.sandbox.advanceOrder(orderId, { status: 'delivered' })).status).toBe('delivered');
  });

  it('a store that needs a connection waits for it, and the user connects it', async () => {
    const { user } = await sandboxUser('grace');
    const checkout = await user.checkouts.create({
      product_url: 'https://members-club.sandbox.test/products/tote-bag',
      buyer: { email: 'grace@example.com' },
      shipping_address: ADDRESS,
    });
    expect(checkout.next_action?.type).toBe('connect_store');
    const [connection] = (await user.connections.list()).connections;
    expect(connection).toMatchObject({ merchant_id: 'sandbox-members', status: 'needs_user' });

    await user.sandbox.createConnection({ merchant_id: 'sandbox-members' });
    const ready = await user.checkouts.waitFor(checkout.id, { intervalMs: 50 });
    expect(ready.status).toBe('ready_to_confirm');
    const canceled = await user.checkouts.cancel(checkout.id);
    expect(canceled.status).toBe('canceled');
  });

  it('a device-session store completes through the sandbox controls', async () => {
    const { user } = await sandboxUser('linus');
    const created = await user.checkouts.create({
      product_url: 'https://megamart.sandbox.test/products/desk-lamp',
      buyer: { email: 'linus@example.com' },
      shipping_address: ADDRESS,
    });
    expect(created.next_action?.type).toBe('device_session');
    await user.sandbox.completeAction(created.id);
    const ready = await user.checkouts.waitFor(created.id, { intervalMs: 50 });
    expect(ready.status).toBe('ready_to_confirm');
    expect((await user.checkouts.confirm(created.id)).status).toBe('confirming');
    const done = await user.sandbox.merchantComplete(created.id);
    expect(done.status).toBe('completed');
  });
});

describe('the rest of the surface against the real server', () => {
  it('pages merchants through next_after', async () => {
    // Protocol stores join the catalog on first use.
    for (const name of ['alpha', 'bravo', 'charlie']) {
      await client.offers.create({ url: `https://${name}.shops.sandbox.test/products/mug` });
    }
    const pages: string[][] = [];
    for await (const page of client.merchants.list({ q: '.shops.sandbox.test', limit: 1 }).pages()) {
      pages.push(page.merchants.map((m) => m.domain));
    }
    expect(pages).toEqual([
      ['alpha.shops.sandbox.test'],
      ['bravo.shops.sandbox.test'],
      ['charlie.shops.sandbox.test'],
    ]);
    const all = [];
    for await (const m of client.merchants.list()) all.push(m.id);
    expect(all).toContain('sandbox-protocol');
    expect((await client.merchants.retrieve('sandbox-protocol')).route).toBe('ucp');
  });

  it('reaches the same API from the service root, with or without /v1 and a trailing slash', async () => {
    for (const root of [listening.url, `${listening.url}/`, `${listening.url}/v1/`]) {
      const other = client.withOptions({ baseUrl: root });
      expect(await other.health.check()).toEqual({ ok: true });
      const { data, requestId } = await other.merchants.list().withResponse();
      expect(data.items.map((m) => m.id)).toContain('sandbox-protocol');
      expect(requestId).toBeTruthy();
    }
  });

  it('creates an approval token for the hosted flow', async () => {
    const approval = await client.approvalTokens.create({
      client_user_id: 'hopper',
      redirect_uri: 'http://localhost:3000/callback',
      rules: { max_per_order: 50_00, currency: 'usd' },
    });
    expect(approval.hosted_url).toContain(listening.url);
    expect(approval.approval_token).toBeTruthy();
  });

  it('maps the server’s errors to typed errors with request ids', async () => {
    const { user } = await sandboxUser('errors');
    const missing = (await user.checkouts.retrieve('chk_nope').catch((e: unknown) => e)) as NotFoundError;
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.requestId).toBeTruthy();
    expect(missing.code).toBe('NOT_FOUND');

    // The server rejects unknown fields; a cast gets one past the types, as plain JavaScript would.
    const unknownField = await client.offers
      .create({ url: 'https://protocol-shop.sandbox.test/p', colour: 'red' } as { url: string })
      .catch((e: unknown) => e);
    expect(unknownField).toBeInstanceOf(BadRequestError);

    const badKey = new CommerceClient({ baseUrl, apiKey: 'svc_test_00000000000000000000000000000000' });
    await expect(badKey.merchants.retrieve('sandbox-protocol')).rejects.toBeInstanceOf(AuthenticationError);

    await expect(client.orders.list()).rejects.toBeInstanceOf(MissingUserTokenError);
  });

  it('reuses an idempotency key for a different request: INVALID_REQUEST', async () => {
    await client.offers.create(
      { url: 'https://protocol-shop.sandbox.test/products/a' },
      { idempotencyKey: 'k-1' },
    );
    const reused = await client.offers
      .create({ url: 'https://protocol-shop.sandbox.test/products/b' }, { idempotencyKey: 'k-1' })
      .catch((e: unknown) => e);
    expect(reused).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
