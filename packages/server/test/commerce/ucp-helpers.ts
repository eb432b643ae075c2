import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { forgetStoreProfiles } from '../../src/commerce/merchants/ucp/discovery.js';
import type { Config } from '../../src/config.js';
import { startUcpStore, type UcpScript, type UcpStore } from '../fakes/ucp-store.js';
import { ADDRESS, as, BUYER, type Call, type Commerce, startCommerce } from './helpers.js';
import { fromHtml, openForm, submit } from './hosted-forms.js';

/** A commerce service whose store adapters may reach loopback stores (SERVICE_STORES_ALLOW_PRIVATE). */
export const startLiveCommerce = (config: Partial<Config> = {}) =>
  startCommerce({ storesAllowPrivate: true, ...config } as Partial<Config>);

/** A user of the live key, approved through the hosted page as a person would. */
export async function liveUser(
  c: Pick<Commerce, 'svc' | 'liveKey'>,
  rules: Record<string, unknown> = { max_per_order: 100_000, max_per_day: 500_000, confirm_above: 50_000 },
): Promise<{ call: Call; userId: string; userToken: string }> {
  const app = as(c.svc, c.liveKey);
  const approval = await app('POST', '/v1/approval_tokens', {
    client_user_id: `u-${Math.random().toString(36).slice(2)}`,
    redirect_uri: 'https://app.example/callback',
    rules,
  });
  if (approval.status !== 201) throw new Error(`approval: ${JSON.stringify(approval.body)}`);
  const form = await openForm(approval.body.hosted_url);
  const res = await submit(c.svc.url, form.action as string, [
    ...form.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
    ['decision', 'approve'],
  ]);
  const publicToken = new URL(res.headers.get('location') as string).searchParams.get('public_token');
  const ex = await app('POST', '/v1/approval_tokens/exchange', { public_token: publicToken });
  if (ex.status !== 200) throw new Error(`exchange: ${JSON.stringify(ex.body)}`);
  return {
    call: as(c.svc, c.liveKey, ex.body.user_token),
    userId: ex.body.user_id,
    userToken: ex.body.user_token,
  };
}

/** Fake UCP stores started by a test; every one must end the test without a contract violation. */
export function ucpStores() {
  const started: UcpStore[] = [];
  afterEach(async () => {
    forgetStoreProfiles();
    for (const s of started.splice(0)) {
      await s.close();
      expect(s.violations, `contract violations at ${s.origin}`).toEqual([]);
    }
  });
  let n = 1;
  return async (script: Partial<UcpScript> = {}) => {
    // Each store gets its own loopback address, so each is its own domain in the catalog.
    const store = await startUcpStore({
      host: `127.0.${Math.floor(Math.random() * 200) + 20}.${++n}`,
      script,
    });
    started.push(store);
    return store;
  };
}

/** An offer, then a checkout from it with the buyer and address: ready at the store. */
export async function offerAndCheckout(user: Call, s: UcpStore, handle = 'mug') {
  const offer = await user('POST', '/v1/offers', { url: s.productUrl(handle) });
  expect(offer.status, JSON.stringify(offer.body)).toBe(201);
  const created = await user('POST', '/v1/checkouts', {
    offer_id: offer.body.id,
    quantity: 1,
    buyer: BUYER,
    shipping_address: ADDRESS,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** A live commerce service and one approved user for a describe block (started before, closed after). */
export function liveServiceAndUser(config: Partial<Config> = {}) {
  const env = {} as { c: Commerce; user: Call };
  beforeAll(async () => {
    env.c = await startLiveCommerce(config);
    env.user = (await liveUser(env.c)).call;
  });
  afterAll(() => env.c.close());
  return env;
}
