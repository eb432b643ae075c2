// Twelfth pass (outside attack on stop 33): the commerce routes auth.test.ts does not try with
// another user's, another account's or the other environment's credentials: a checkout's
// user_input and the sandbox's user_confirm, complete_action and merchant_complete, and an
// idempotency key reused by someone else. Each must answer like a missing object (or a key
// mismatch) and change nothing. docs/security.md, "Twelfth pass".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADDRESS,
  as,
  BUYER,
  type Commerce,
  otherAccountKey,
  PROTOCOL,
  sandboxUser,
  startCommerce,
} from '../commerce/helpers.js';

describe('commerce: another user, account or environment on the routes auth.test.ts leaves out', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  it('user_input and the sandbox actions on another user’s checkout answer 404 and change nothing', async () => {
    const alice = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'alice' });
    const bob = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'bob' });
    const otherKey = await otherAccountKey(c, 'idor1');
    const stranger = await sandboxUser(c.svc, otherKey, { client_user_id: 'alice' });
    const liveUser = await sandboxUser(c.svc, c.liveKey, { client_user_id: 'alice' }).catch(() => null);

    const chk = await alice.call('POST', '/v1/checkouts', {
      product_url: `${PROTOCOL}/idor-lamp`,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(chk.status, JSON.stringify(chk.body)).toBe(201);
    const before = (await alice.call('GET', `/v1/checkouts/${chk.body.id}`)).body;

    const intruders: [string, typeof bob.call][] = [
      ['bob (same app)', bob.call],
      ['alice of another account', stranger.call],
      ["alice's sandbox token with the live key", as(c.svc, c.liveKey, alice.userToken)],
    ];
    if (liveUser) intruders.push(['alice on the live key', liveUser.call]);
    for (const [who, call] of intruders) {
      for (const [path, body] of [
        [`/v1/checkouts/${chk.body.id}/user_input`, { fields: { size: 'L' } }],
        [`/v1/sandbox/checkouts/${chk.body.id}/user_confirm`, {}],
        [`/v1/sandbox/checkouts/${chk.body.id}/complete_action`, {}],
        [`/v1/sandbox/checkouts/${chk.body.id}/merchant_complete`, {}],
      ] as const) {
        const res = await call('POST', path, body);
        expect([401, 403, 404], `${who} ${path}: ${res.status} ${JSON.stringify(res.body)}`).toContain(
          res.status,
        );
        expect(res.body.error, path).toBeDefined();
      }
    }
    expect((await alice.call('GET', `/v1/checkouts/${chk.body.id}`)).body).toEqual(before);
  });

  it('an idempotency key another user used first is never answered with that user’s response', async () => {
    const alice = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'alice-2' });
    const bob = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'bob-2' });
    const otherKey = await otherAccountKey(c, 'idor2');
    const stranger = await sandboxUser(c.svc, otherKey, { client_user_id: 'alice-2' });
    const body = { product_url: `${PROTOCOL}/idem-lamp`, buyer: BUYER, shipping_address: ADDRESS };
    const headers = { 'idempotency-key': 'shared-key-1' };
    const first = await alice.call('POST', '/v1/checkouts', body, headers);
    expect(first.status).toBe(201);
    for (const call of [bob.call, stranger.call]) {
      const res = await call('POST', '/v1/checkouts', body, headers);
      expect(res.headers.get('idempotent-replayed'), 'replayed another user’s answer').not.toBe('true');
      if (res.status === 201) expect(res.body.id).not.toBe(first.body.id);
      else expect(res.body.error).toBeDefined();
    }
    // Alice's own retry still replays.
    const again = await alice.call('POST', '/v1/checkouts', body, headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });
});
