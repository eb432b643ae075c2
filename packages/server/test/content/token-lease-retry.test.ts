import { describe, expect, it, vi } from 'vitest';
import { leasesStore } from '../../src/platform/db/leases-store.js';
import { runOutLease } from '../helpers/leases.js';
import { api, type TestService } from '../helpers/start.js';
import { handle, instancesBeside, nextRefreshHeld, publishNow, until } from './instances-beside.js';

/**
 * A publish needs the channel's access token, and a token about to expire is refreshed under a
 * lease in the database, one instance at a time (channel-credentials.ts). When another instance
 * keeps that lease (a slow refresh, an instance stalled inside its lease), or takes it over twice,
 * or this instance starts to stop while it waits, nothing more was sent: the post is tried again
 * later, like a platform's 5xx, never failed for good. A stop ends the wait at once rather than
 * holding close() for it (2 min 15 s, twice after a lost lease). The lease is held by a row named
 * for instance B, as B's refresh would hold it; passes are driven by hand.
 */

const HOUR = 3_600_000;
const refreshLease = (channelId: string) => `content:token-refresh:${channelId}`;

/** Instance `holder`'s refresh of the channel holds the lease (a row that outlasts the test). */
async function leaseHeldBy(holder: TestService, channelId: string) {
  const db = handle(holder).db;
  const owner = `${handle(holder).ctx.instanceId}/refresh`;
  expect(await leasesStore(db).take(refreshLease(channelId), owner, 10 * 60_000, db.dialect)).toBe(true);
  return { release: () => leasesStore(db).release(refreshLease(channelId), owner) };
}

/** How many times `svc` has asked for the channel's refresh lease (a waiter asks every 25 ms). */
function leaseTakes(svc: TestService, channelId: string) {
  const db = handle(svc).ctx.db;
  const run = vi.spyOn(db, 'run');
  const asksForLease = ([, params]: Parameters<typeof db.run>) =>
    Array.isArray(params) && params[0] === refreshLease(channelId);
  return () => run.mock.calls.filter(asksForLease).length;
}

const postOf = async (svc: TestService, id: string) => (await api(svc.url, 'GET', `/v1/posts/${id}`)).body;

/** Moves past the post's retry_at and runs `svc`'s background pass: the post goes out. */
async function retried(svc: TestService, id: string) {
  const post = await postOf(svc, id);
  svc.clock.advance(Date.parse(post.retry_at) - svc.clock.now().getTime() + 1000);
  expect(await handle(svc).backgroundPass()).toBe(true);
  return postOf(svc, id);
}

describe('a token refresh lease held elsewhere: the post is retried', () => {
  // Short leases so a wait for a held lease runs out in seconds (the wait is 9/8 of the lease).
  const { twoLive } = instancesBeside({ workLeaseMs: 2_000 });

  it('LOCK_BUSY: scheduled again with a retry_at and a notice, and published by a later pass', async () => {
    const { stack, a, b, channelId } = await twoLive();
    a.clock.advance(2 * HOUR); // the token now expires within five minutes: a publish refreshes
    const held = await leaseHeldBy(b, channelId);

    const r = await publishNow(a, channelId, 'Out once the refresh is free.');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'scheduled', retry_at: expect.any(String), failure: null });
    expect(r.body.notice).toMatch(
      /^LOCK_BUSY: Waited 2 s for the token refresh of channel \S+, which another request is still doing\. Trying again at /,
    );
    expect(stack.x.tweets.size).toBe(0);
    expect((await api(a.url, 'GET', `/v1/channels/${channelId}`)).body.status).toBe('connected');

    await held.release();
    expect(await retried(b, r.body.id)).toMatchObject({ status: 'published', notice: null, retry_at: null });
    expect(stack.x.tweets.size).toBe(1);
    expect(stack.x.violations).toEqual([]);
  });

  it('a second LOCK_LOST: scheduled again, and published by a later pass', async () => {
    const { stack, a, b, channelId } = await twoLive();
    // A's refresh is held at X while its lease runs out and B takes the refresh over.
    const first = nextRefreshHeld(stack, a.clock);
    const fromA = publishNow(a, channelId, 'Published through instance A.');
    await until(() => first.refreshes() === 1);
    await runOutLease(handle(a).db, refreshLease(channelId));
    expect((await publishNow(b, channelId, 'B takes over once.')).body.status).toBe('published');

    // B's tokens expire soon too, so A, having lost its lease, refreshes again, and is held again.
    const second = nextRefreshHeld(stack, a.clock);
    first.open();
    await until(() => second.refreshes() === 1);
    await runOutLease(handle(a).db, refreshLease(channelId));
    expect((await publishNow(b, channelId, 'B takes over twice.')).body.status).toBe('published');
    second.open();

    const ra = await fromA;
    expect(ra.status).toBe(201);
    expect(ra.body).toMatchObject({ status: 'scheduled', retry_at: expect.any(String), failure: null });
    expect(ra.body.notice).toMatch(
      /^LOCK_LOST: Stopped the token refresh of channel \S+: this request stalled/,
    );
    expect((await api(a.url, 'GET', `/v1/channels/${channelId}`)).body.status).toBe('connected');
    expect(await retried(a, ra.body.id)).toMatchObject({ status: 'published' });
    expect(stack.x.tweets.size).toBe(3);
    expect(stack.x.violations).toEqual([]);
  });
});

describe('a stop while a publish waits for the token refresh lease', () => {
  // The real lease lengths: the old wait held close() for 2 min 15 s, past the test's timeout.
  const { twoLive } = instancesBeside();

  /**
   * B holds the channel's refresh lease while A's background pass waits for it (asking again and
   * again), and A stops meanwhile; returns once A's stop is done, with B's lease.
   */
  async function stoppedWhileWaiting(a: TestService, b: TestService, channelId: string) {
    const held = await leaseHeldBy(b, channelId);
    const takes = leaseTakes(a, channelId);
    const pass = handle(a).backgroundPass();
    await until(() => takes() >= 2);
    await a.stop();
    expect(await pass).toBe(true);
    return held;
  }

  it('ends the wait at once: the post is scheduled again, nothing published, and another instance publishes it', async () => {
    const { stack, a, b, channelId } = await twoLive();
    const when = new Date(a.clock.now().getTime() + HOUR).toISOString();
    const post = await api(a.url, 'POST', '/v1/posts', {
      body: { channel_id: channelId, text: 'Due as A stops.', scheduled_for: when },
    });
    expect(post.status).toBe(201);
    a.clock.advance(2 * HOUR);
    const held = await stoppedWhileWaiting(a, b, channelId);

    const after = await postOf(b, post.body.id);
    expect(after).toMatchObject({ status: 'scheduled', retry_at: expect.any(String), failure: null });
    expect(after.notice).toMatch(
      /^LOCK_BUSY: Stopped waiting for the token refresh of channel \S+, which another request is still doing: this instance is stopping\. Trying again at /,
    );
    expect(stack.x.tweets.size).toBe(0);

    await held.release();
    expect(await retried(b, post.body.id)).toMatchObject({ status: 'published' });
    expect(stack.x.tweets.size).toBe(1);
  });

  it('a metrics read waiting for the lease ends too: a later pass takes the snapshot', async () => {
    const { stack, a, b, channelId } = await twoLive();
    const r = await publishNow(a, channelId, 'Read as A stops.');
    expect(r.body.status).toBe('published');
    a.clock.advance(2 * HOUR); // the 1 h snapshot is due, and the token is due a refresh
    const held = await stoppedWhileWaiting(a, b, channelId);
    expect((await postOf(b, r.body.id)).metrics).toBeNull();

    await held.release();
    expect(await handle(b).backgroundPass()).toBe(true);
    expect((await postOf(b, r.body.id)).metrics).toMatchObject({ age_h: 1 });
    expect(stack.x.tweets.size).toBe(1);
  });
});
