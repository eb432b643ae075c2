import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CommerceServiceHandle } from '../../src/commerce/app.js';
import { apiKeysStore } from '../../src/commerce/db/api-keys-store.js';
import { createCommerceApiKey } from '../../src/commerce/services/api-keys.js';
import type { Config } from '../../src/config.js';
import { sha256Hex } from '../../src/platform/api-key-hash.js';
import { randomIds } from '../../src/platform/ids.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

export interface Commerce {
  svc: TestService;
  sandboxKey: string;
  liveKey: string;
  handle: CommerceServiceHandle;
  close(): Promise<void>;
}

export async function makeKey(svc: TestService, env: 'sandbox' | 'live', name = 'Acme Shopping Assistant') {
  const { key } = await createCommerceApiKey(
    svc.handle.db,
    { clock: svc.clock, ids: randomIds },
    { env, name },
  );
  return key;
}

/**
 * A sandbox key of a second account (`acct_<suffix>`): keys made by makeKey share the service's
 * one account, so their users are the same people; this one's are strangers.
 */
export async function otherAccountKey(c: Commerce, suffix = 'other') {
  const key = `svc_test_${sha256Hex(suffix).slice(0, 32)}`;
  const store = apiKeysStore(c.handle.db);
  const now = c.svc.clock.now().toISOString();
  await store.ensureAccount({ id: `acct_${suffix}`, name: 'Other', created_at: now });
  await store.insert({
    id: `key_${suffix}`,
    account_id: `acct_${suffix}`,
    env: 'sandbox',
    name: 'Other app',
    prefix: key.slice(0, 12),
    key_hash: sha256Hex(key),
    created_at: now,
  });
  return key;
}

/** A commerce service on a temp dir with a manual clock, plus one sandbox and one live key. */
export async function startCommerce(config: Partial<Config> = {}): Promise<Commerce> {
  const svc = await startTestService('commerce', { config });
  return {
    svc,
    handle: svc.handle as CommerceServiceHandle,
    sandboxKey: await makeKey(svc, 'sandbox'),
    liveKey: await makeKey(svc, 'live'),
    close: () => svc.close(),
  };
}

export type Call = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: any; headers: Headers }>;

/** Calls the API as one key (and optionally one user). */
export function as(svc: { url: string }, key: string | null, userToken?: string): Call {
  return (method, path, body, headers = {}) =>
    api(svc.url, method, path, {
      ...(body === undefined ? {} : { body }),
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(userToken ? { 'service-user-token': userToken } : {}),
        ...headers,
      },
    });
}

/** A user token through the sandbox shortcut. */
export async function sandboxUser(
  svc: { url: string },
  key: string,
  body: Record<string, unknown> = {},
): Promise<{ userToken: string; userId: string; call: Call }> {
  const call = as(svc, key);
  const pt = await call('POST', '/v1/sandbox/public_token', body);
  if (pt.status !== 201) throw new Error(`public_token: ${JSON.stringify(pt.body)}`);
  const ex = await call('POST', '/v1/approval_tokens/exchange', { public_token: pt.body.public_token });
  if (ex.status !== 200) throw new Error(`exchange: ${JSON.stringify(ex.body)}`);
  return { userToken: ex.body.user_token, userId: ex.body.user_id, call: as(svc, key, ex.body.user_token) };
}

export const ADDRESS = {
  name: 'Ada Lovelace',
  line1: '1 Main St',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62701',
  country: 'US',
};
export const BUYER = { email: 'ada@example.com', phone: '+1 555 0100' };

export const PROTOCOL = 'https://protocol-shop.sandbox.test/products';
export const MAJOR = 'https://megamart.sandbox.test/products';
export const CORNER = 'https://corner-store.sandbox.test/products';
export const MEMBERS = 'https://members-club.sandbox.test/products';

/** Event types delivered to `receiver` since the last call, for one object id (runs due deliveries first). */
export async function deliveredEvents(
  c: Commerce,
  receiver: { received: Received[] },
  id: string,
): Promise<string[]> {
  await c.handle.dispatcher.runDue();
  const out = receiver.received.filter((r) => r.event.data.id === id).map((r) => r.event.type);
  receiver.received.splice(0);
  return out;
}

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  event: any;
}

/** A webhook receiver on 127.0.0.1 that records what arrives and answers `status`. */
export async function startReceiver(
  respond: (req: IncomingMessage) => { status: number; headers?: Record<string, string> } = () => ({
    status: 200,
  }),
): Promise<{ url: string; received: Received[]; close(): Promise<void>; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, body, event: JSON.parse(body) });
      const out = respond(req);
      res.writeHead(out.status, out.headers ?? {});
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One sandbox user with `max_per_day: 3000` and two ready checkouts of theirs that together go
 * over it (price-1000 ships for 5.99 and is taxed 8.25% in the US: 1682 each, 3364 for both),
 * with a caller for each of two instances: for races between confirms on two instances.
 */
export async function twoCheckoutsOverMaxPerDay(instances: { a: TestService; b: TestService }, key: string) {
  const { userToken } = await sandboxUser(instances.a, key, { rules: { max_per_day: 3000 } });
  const onA = as(instances.a, key, userToken);
  const onB = as(instances.b, key, userToken);
  const checkout = async () =>
    (
      await onA('POST', '/v1/checkouts', {
        product_url: `${PROTOCOL}/price-1000-book`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      })
    ).body.id as string;
  return { onA, onB, one: await checkout(), two: await checkout() };
}
