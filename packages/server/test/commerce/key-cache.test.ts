// Commerce API keys are cached per instance under a lease on the commerce key epoch (migration 16,
// platform/key-cache.ts), so a warm key costs no SELECT. What must still hold, over real HTTP on
// two instances sharing one database (SQLite file or PostgreSQL): once the request that makes a key
// unusable has returned, the very next request with it fails on every instance, whichever path made
// it unusable; and a cached key never answers in the other environment.
import { describe, expect, it, vi } from 'vitest';
import { as, PROTOCOL } from './helpers.js';
import {
  cliRevoke,
  dashboardKey,
  expectRefused,
  keyCacheOf,
  keyEpochOf,
  keyLookups,
  merchants,
  revokeOnDashboard,
  twoCommerceWatchingRevokes,
  warm,
} from './key-cache-helpers.js';

describe('commerce key cache across instances', () => {
  const { two, waitedOut } = twoCommerceWatchingRevokes();

  it('a warm key is answered without reading the key table; a made-up one is still looked up', async () => {
    const { a, b } = two;
    const { key } = await dashboardKey(a);
    await warm(b, key);
    let lookups = 0;
    const renewals = keyCacheOf(b).renewals;
    for (let i = 0; i < 10; i++) {
      await keyCacheOf(b).renew();
      lookups += await keyLookups(b, () => merchants(b, key));
    }
    expect(lookups).toBe(0);
    expect(keyCacheOf(b).renewals).toBeGreaterThan(renewals);
    // Only keys that exist are cached: a flood of made-up keys costs what it did, and fails.
    const made = `svc_test_${'x'.repeat(32)}`;
    expect(await keyLookups(b, () => expectRefused(b, made))).toBe(1);
    expect(await keyLookups(b, () => expectRefused(b, made))).toBe(1);
  });

  it('revoked through A (dashboard), the next request on B fails, and on A too', async () => {
    const { a, b } = two;
    const { key, id } = await dashboardKey(a);
    await warm(a, key);
    await warm(b, key);
    const epoch = await keyEpochOf(a).read();
    expect((await revokeOnDashboard(a, id)).status).toBe(200);
    expect(await keyEpochOf(a).read()).toBe(epoch + 1);
    await expectRefused(b, key, 'B');
    await expectRefused(a, key, 'A');
    expect(waitedOut()).toEqual([]);
    // Revoking it again changes nothing and moves nothing.
    expect((await revokeOnDashboard(b, id)).status).toBe(200);
    expect(await keyEpochOf(a).read()).toBe(epoch + 1);
  });

  it('revoked with `svc-server keys revoke` (another process), the next request fails on both', async () => {
    const { a, b } = two;
    const { key, id } = await dashboardKey(a);
    await warm(a, key);
    await warm(b, key);
    const revoked = await cliRevoke(a, id);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id, already_revoked: false });
    // Both instances acknowledged: nothing was waited out.
    expect(revoked.stderr).not.toContain('did not acknowledge');
    await expectRefused(b, key, 'B');
    await expectRefused(a, key, 'A');
  });

  it('a cached key answers only in its own environment, before and after its row is changed by hand', async () => {
    const { a, b } = two;
    const sandbox = await dashboardKey(a, 'sandbox');
    const live = await dashboardKey(a, 'live');
    await warm(b, sandbox.key);
    await warm(b, live.key);
    // Both warm on B: each is still the environment it was made in.
    const offer = await as(b, sandbox.key)('POST', '/v1/offers', { url: `${PROTOCOL}/lamp-price-1500` });
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    expect((await as(b, sandbox.key)('GET', `/v1/offers/${offer.body.id}`)).status).toBe(200);
    expect((await as(b, live.key)('GET', `/v1/offers/${offer.body.id}`)).status).toBe(404);
    const token = (k: string) => as(b, k)('POST', '/v1/sandbox/public_token', { client_user_id: 'u-1' });
    expect((await token(live.key)).body.error.code).toBe('SANDBOX_ONLY');

    // An operator moves the sandbox key's row to live in SQL: the trigger moves the epoch in that
    // statement, and B drops its cache at its next renewal. The key says svc_test_, so it is refused
    // rather than let it act in live; the live key is untouched.
    const epoch = await keyEpochOf(a).read();
    await a.handle.db.run("UPDATE api_keys SET env = 'live' WHERE id = ?", [sandbox.id]);
    expect(await keyEpochOf(a).read()).toBe(epoch + 1);
    await keyCacheOf(b).renew({ fresh: true });
    await expectRefused(b, sandbox.key, 'B');
    expect((await merchants(b, live.key)).status).toBe(200);
    expect((await token(live.key)).body.error.code).toBe('SANDBOX_ONLY');
  });

  it("a key's row changed by hand moves the epoch; the last-used stamp and new keys do not", async () => {
    const { a, b } = two;
    const { key, id } = await dashboardKey(a);
    await warm(b, key);
    const epoch = await keyEpochOf(a).read();
    await a.handle.db.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [
      '2020-01-01T00:00:00.000Z',
      id,
    ]);
    await dashboardKey(a, 'live');
    expect(await keyEpochOf(a).read()).toBe(epoch);
    await a.handle.db.run("UPDATE api_keys SET name = 'Renamed' WHERE id = ?", [id]);
    expect(await keyEpochOf(a).read()).toBe(epoch + 1);
    // Deleted by hand (idempotency rows name the key only as text, so nothing else holds it).
    await a.handle.db.run('DELETE FROM api_keys WHERE id = ?', [id]);
    expect(await keyEpochOf(a).read()).toBe(epoch + 2);
    await keyCacheOf(b).renew({ fresh: true });
    await expectRefused(b, key, 'B');
  });

  it('an instance whose epoch read fails looks the key up on every request, and still refuses a revoked key at once', async () => {
    const { a, b } = two;
    const { key, id } = await dashboardKey(a);
    await warm(b, key);
    vi.spyOn(keyEpochOf(b), 'read').mockRejectedValue(new Error('epoch read refused'));
    await keyCacheOf(b).renew({ fresh: true });
    expect(keyCacheOf(b).trusted).toBe(false);
    expect(await keyLookups(b, () => merchants(b, key))).toBe(1);
    expect(await keyLookups(b, () => merchants(b, key))).toBe(1);
    // B cannot acknowledge the revoke; A waits out B's lease (logged), then returns.
    expect((await revokeOnDashboard(a, id)).status).toBe(200);
    await expectRefused(b, key, 'B');
    expect(waitedOut()).toHaveLength(1);
  });

  it('a registered instance that never answers is waited out, and named in the log', async () => {
    const { a } = two;
    const { id } = await dashboardKey(a);
    const silent = 'elsewhere#1/4242/inst_silent';
    await keyEpochOf(a).acknowledge(silent, 0, a.handle.db.dialect, 1);
    expect((await revokeOnDashboard(a, id)).status).toBe(200);
    expect(waitedOut()).toHaveLength(1);
    expect(waitedOut()[0]?.instances).toEqual([silent]);
    await keyEpochOf(a).forget(silent);
  });
});
