import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assetDir, mediaRoot } from '../../src/content/media/files.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { runOutLease } from '../helpers/leases.js';
import { api, type TestService } from '../helpers/start.js';
import {
  gate,
  handle,
  instancesBeside,
  nextRefreshHeld,
  publishNow,
  revOf,
  until,
  uploadChart,
} from './instances-beside.js';

/**
 * The work that runs under a lease outside a transaction (a channel's token refresh, a change to a
 * media asset; platform/db/lease-lock.ts), on two content instances on one database:
 * - a holder stalled past its lease, while the other instance took the work over, cannot write
 *   over the newer result (the fence: its write is refused, and it yields or says LOCK_LOST);
 * - a holder that is slow but alive keeps its lease (the heartbeat), so nobody takes it over;
 * - a lease that ran out but that nobody took is still its holder's: its result is written.
 * A stall is the lease running out under a holder held at one step (runOutLease: as its length
 * passing on the database's clock would), or, for the heartbeat, a holder held for several
 * lease lengths of a lease shortened to LEASE_MS.
 */

// Long enough that a loaded CI machine's pauses (a second or more, seen beside parallel test
// files on two cores) stay well inside the 1/3-lease renewal gap, short enough for 3 renewals.
const LEASE_MS = 4_000;

const refreshLease = (channelId: string) => `content:token-refresh:${channelId}`;
const assetLease = (assetId: string) => `content:media:${assetId}`;

const focus = (svc: TestService, assetId: string, x: number) =>
  api(svc.url, 'PATCH', `/v1/media/${assetId}`, { body: { focal_point: { x, y: 0.5 } } });

/**
 * Counts how often the named lease's end moved: each move after the take is a renewal by its
 * holder. `renewals()` reads the row once and returns the count so far.
 */
function leaseRenewals(db: SqlDatabase, name: string) {
  const ends = new Set<string>();
  return async () => {
    const row = await db.get<{ until: string }>('SELECT until FROM leases WHERE name = ?', [name]);
    if (row) ends.add(row.until);
    return ends.size - 1;
  };
}

/**
 * Sets the asset's focal point to x = 0.1 through `svc`, and stalls that change once rendered,
 * just before it writes its row: `svc`'s next database transaction that begins once the asset's
 * directory holds crops of a revision after the first waits for `go()`. It waits before it
 * begins, so it holds no lock meanwhile. Resolves once the change has stalled.
 */
async function focusStalledBeforeRowWrite(svc: TestService, assetId: string) {
  const dir = assetDir(mediaRoot(svc.config), assetId);
  const rendered = () => readdirSync(dir).some((f) => /^square\.([2-9]|\d\d+)\./.test(f));
  const db = handle(svc).db;
  const transaction = db.transaction.bind(db);
  const held = gate();
  let stalled = false;
  db.transaction = (async (fn: any, opts: any) => {
    if (!stalled && rendered()) {
      stalled = true;
      await held.until;
    }
    return transaction(fn, opts);
  }) as SqlDatabase['transaction'];
  const answer = focus(svc, assetId, 0.1);
  await until(() => stalled);
  return { answer, go: held.open };
}

describe('a holder stalled past its lease cannot overwrite the newer result', () => {
  const { beside, first, twoLive } = instancesBeside();

  it('token refresh: the stalled refresh yields to the one that took over, and the channel stays connected', async () => {
    const { stack, a, b, channelId } = await twoLive();
    const x = nextRefreshHeld(stack, a.clock);
    const fromA = publishNow(a, channelId, 'Published through instance A.');
    await until(() => x.refreshes() === 1);

    // A's refresh stalls past its lease; B takes the lease over and refreshes with the same
    // refresh token, which X rotates.
    await runOutLease(handle(a).db, refreshLease(channelId));
    const fromB = await publishNow(b, channelId, 'Published through instance B.');
    expect(fromB.body.status).toBe('published');
    expect(x.refreshes()).toBe(2);

    // A's refresh reaches X late, with the refresh token B spent: X refuses it. A no longer holds
    // the lease, so it does not mark the channel over B's good tokens; it uses them.
    x.open();
    const ra = await fromA;
    expect([ra.status, ra.body.status]).toEqual([201, 'published']);
    const channel = await api(a.url, 'GET', `/v1/channels/${channelId}`);
    expect([channel.body.status, channel.body.status_reason]).toEqual(['connected', null]);
    expect(stack.x.tweets.size).toBe(2);
    expect(x.refreshes()).toBe(2);
    // What B stored is X's live refresh token: two hours on, the next publish refreshes with it.
    a.clock.advance(2 * 3_600_000);
    expect((await publishNow(a, channelId, 'Two hours later.')).body.status).toBe('published');
    expect(x.refreshes()).toBe(3);
    expect(stack.x.violations).toEqual([]);
  });

  it('token refresh: a refresh whose lease ran out but that nobody took over still stores its rotated tokens', async () => {
    const { stack, a, channelId } = await twoLive();
    const x = nextRefreshHeld(stack, a.clock);
    const fromA = publishNow(a, channelId, 'Published after a slow refresh.');
    await until(() => x.refreshes() === 1);
    await runOutLease(handle(a).db, refreshLease(channelId));
    // X rotates the refresh token as it answers. Nobody else began a refresh, so A's tokens are
    // the only good ones: a fence that refused them because the lease had run out would cost the
    // channel at the next refresh (A would refresh again with the spent token).
    x.open();
    expect((await fromA).body.status).toBe('published');
    expect(x.refreshes()).toBe(1);
    a.clock.advance(2 * 3_600_000);
    expect((await publishNow(a, channelId, 'Two hours later.')).body.status).toBe('published');
    expect(x.refreshes()).toBe(2);
    expect((await api(a.url, 'GET', `/v1/channels/${channelId}`)).body.status).toBe('connected');
  });

  it('media: the stalled change is refused with 503 LOCK_LOST; the row and files are the newer change', async () => {
    const a = await first();
    const b = await beside(a);
    const id = await uploadChart(a);
    const stalled = await focusStalledBeforeRowWrite(a, id);

    // A stalls past its lease after rendering; B takes the lease over and makes its change.
    await runOutLease(handle(a).db, assetLease(id));
    const rb = await focus(b, id, 0.9);
    expect(rb.status).toBe(200);

    stalled.go();
    const ra = await stalled.answer;
    expect(ra.status).toBe(503);
    expect(ra.body.error.code).toBe('LOCK_LOST');
    expect(ra.headers.get('retry-after')).toBe('5');

    const last = (await api(a.url, 'GET', `/v1/media/${id}`)).body;
    expect(last.focal_point).toEqual({ x: 0.9, y: 0.5 });
    expect(last.variants).toEqual(rb.body.variants);
    for (const v of Object.values(last.variants) as { url: string }[])
      expect((await fetch(`${a.url}${v.url}`)).status).toBe(200);
    // A's refused render is removed, and B's crops were rendered under a revision of their own
    // (the first revision's went once B's row no longer named them).
    expect(revOf(rb)).toBe('3');
    const crops = readdirSync(assetDir(mediaRoot(a.config), id)).filter((f) => f.startsWith('square.'));
    expect(crops).toEqual(['square.3.jpg']);
  });
});

describe('the heartbeat keeps a slow but alive holder its lease', () => {
  const { beside, first, twoLive } = instancesBeside({ workLeaseMs: LEASE_MS });

  it('token refresh: a refresh X holds for several lease lengths is not taken over; one refresh for both', async () => {
    const { stack, a, b, channelId } = await twoLive();
    const x = nextRefreshHeld(stack, a.clock);
    const fromA = publishNow(a, channelId, 'Published through instance A.');
    await until(() => x.refreshes() === 1);
    const renewals = leaseRenewals(handle(a).db, refreshLease(channelId));
    const fromB = publishNow(b, channelId, 'Published through instance B.');
    // Three renewals, a third of a lease apart: A has outlived the lease it took. Without them B
    // takes the lease over once it runs out, and refreshes a second time.
    await until(async () => (await renewals()) >= 3 || x.refreshes() > 1);
    const refreshesWhileHeld = x.refreshes();
    x.open();
    const [ra, rb] = await Promise.all([fromA, fromB]);
    expect(refreshesWhileHeld).toBe(1);
    expect([ra.body.status, rb.body.status]).toEqual(['published', 'published']);
    expect(x.refreshes()).toBe(1);
    expect((await api(b.url, 'GET', `/v1/channels/${channelId}`)).body.status).toBe('connected');
  });

  it('media: a change held for several lease lengths is not taken over; the next renders after it', async () => {
    const a = await first();
    const b = await beside(a);
    const id = await uploadChart(a);
    const stalled = await focusStalledBeforeRowWrite(a, id);
    const renewals = leaseRenewals(handle(a).db, assetLease(id));
    let bAnswered = false;
    const fromB = focus(b, id, 0.9).finally(() => {
      bAnswered = true;
    });
    await until(async () => (await renewals()) >= 3 || bAnswered);
    const takenOver = bAnswered;
    stalled.go();
    const [ra, rb] = await Promise.all([stalled.answer, fromB]);
    expect(takenOver).toBe(false);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    expect([revOf(ra), revOf(rb)]).toEqual(['2', '3']);
    expect((await api(b.url, 'GET', `/v1/media/${id}`)).body.focal_point).toEqual({ x: 0.9, y: 0.5 });
  });
});
