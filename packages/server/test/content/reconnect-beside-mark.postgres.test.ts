import { describe, expect, it } from 'vitest';
import { openContentDatabase } from '../../src/content/db/open.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { authorize, connectLive, type LiveStack, visit } from '../helpers/live.js';
import { api, type TestService } from '../helpers/start.js';
import {
  gate,
  instancesBeside,
  publishNow,
  sealedWithAnotherKey,
  storedTokens,
  until,
} from './instances-beside.js';

/**
 * Writes decided on the tokens a caller read (a refresh's new tokens, a needs_reconnect mark),
 * made while a connect's transaction is open on another instance: PostgreSQL, two instances on
 * one database. The connect writes the channel row, then the tokens, in one transaction. The
 * mark locks the channel row, then looks at the tokens; the refresh's write updates the tokens
 * row only where it holds what the refresh read (channel-credentials.ts, Held). So either waits
 * for the connect to commit, then sees its tokens, and writes nothing.
 *
 * A connect over a connected channel: the person clicked Connect twice (two tabs) while the
 * channel was disconnected, finished one, and then the other. The second connect's transaction is
 * held open between its two writes by the test's own transaction, which has locked the tokens row
 * (the connect's upsert waits for it). Each step waits until PostgreSQL shows the expected lock
 * waits, so the order is the same on every run. SQLite has no such moment: a write transaction
 * holds the whole database from BEGIN IMMEDIATE, so a mark or a refresh's write runs wholly before
 * or after a connect's (test reconnect-during-refresh and reconnect-beside-unleased-mark).
 */

/** Sessions of this test's database waiting for a lock. */
async function lockWaits(db: SqlDatabase): Promise<number> {
  const row = await db.get<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return Number(row?.n);
}

/** A transaction on `db` holding the channel's tokens row locked until `release()`. */
async function tokensRowLocked(db: SqlDatabase, channelId: string) {
  const held = gate();
  const locked = gate();
  const done = db.transaction(async (tx) => {
    await tx.get('SELECT channel_id FROM channel_credentials WHERE channel_id = ? FOR UPDATE', [channelId]);
    locked.open();
    await held.until;
  });
  await locked.until;
  return {
    release: async () => {
      held.open();
      await done;
    },
  };
}

describe("writes over a channel's tokens while a connect's transaction is open on another instance", () => {
  const { twoLive, track } = instancesBeside();

  /**
   * A connected channel with a second connect of the same account waiting at its callback:
   * through B, the person disconnected it, started two connects, and finished the second.
   */
  async function secondConnectWaiting() {
    const { stack, a, b, channelId } = await twoLive();
    const brandId = (await api(a.url, 'GET', `/v1/channels/${channelId}`)).body.brand_id as string;
    expect((await api(b.url, 'DELETE', `/v1/channels/${channelId}`)).status).toBe(200);
    const { callbackUrl } = await authorize(b, brandId, 'x');
    expect(await connectLive(b, brandId, 'x')).toMatchObject({ id: channelId, status: 'connected' });
    // The test's own connections: the instances' pools are small (TEST_POOL_SIZE).
    const own = await openContentDatabase(a.config);
    track(() => own.close());
    const waits = (n: number) => until(async () => (await lockWaits(own)) === n);

    /**
     * The second connect's callback, its transaction held open once it has written the channel
     * row until `finish()`.
     */
    const holdConnectOpen = async () => {
      const row = await tokensRowLocked(own, channelId);
      const back = visit(callbackUrl);
      await waits(1);
      return {
        /** Lets the connect commit; the access token its code exchange got. */
        finish: async () => {
          await row.release();
          expect((await back).location).toBe(`/settings?connected=${channelId}`);
          return stack.x.issued.filter((t) => t.grant === 'authorization_code').at(-1)?.accessToken;
        },
      };
    };
    return { stack, a, channelId, waits, holdConnectOpen };
  }

  /** X answers A's access token 401, and holds the refresh that follows until `open()`. */
  async function refreshHeld(stack: LiveStack, a: TestService, channelId: string) {
    stack.x.expire((await storedTokens(a, channelId))?.access as string);
    const tokenCalls = () => stack.x.requests.filter((r) => r === 'POST /2/oauth2/token').length;
    const before = tokenCalls();
    const held = gate();
    stack.x.failNext('POST /2/oauth2/token', { kind: 'hold', until: held.until });
    const fromA = publishNow(a, channelId, 'Published while the person reconnects.');
    await until(() => tokenCalls() === before + 1);
    return { fromA, open: held.open };
  }

  async function expectConnectedAndPublished(
    s: { stack: LiveStack; a: TestService; channelId: string },
    fromA: ReturnType<typeof publishNow>,
    /** The access token the connect got: the one stored. */
    connected: string | undefined,
  ) {
    const ra = await fromA;
    expect([ra.status, ra.body.status]).toEqual([201, 'published']);
    const channel = await api(s.a.url, 'GET', `/v1/channels/${s.channelId}`);
    expect([channel.body.status, channel.body.status_reason]).toEqual(['connected', null]);
    expect(connected).toBeDefined();
    expect((await storedTokens(s.a, s.channelId))?.access).toBe(connected);
    expect(s.stack.x.tweets.size).toBe(1);
    expect(s.stack.x.violations).toEqual([]);
  }

  it('a refresh the platform refuses marks nothing: its mark waits for the connect and sees its tokens', async () => {
    const s = await secondConnectWaiting();
    const refresh = await refreshHeld(s.stack, s.a, s.channelId);
    // The person removed the app at X: the refresh token A sent no longer works.
    s.stack.x.revokeApp();
    const connect = await s.holdConnectOpen();
    // X refuses A's refresh; A's mark waits for the connect's channel row. Had it looked at the
    // tokens first, it would have read the ones it refreshed with (the connect's are not
    // committed) and marked the channel the person had just connected.
    refresh.open();
    await s.waits(2);
    await expectConnectedAndPublished(s, refresh.fromA, await connect.finish());
  });

  it("a refresh the platform grants stores nothing over the connect's tokens", async () => {
    const s = await secondConnectWaiting();
    const refresh = await refreshHeld(s.stack, s.a, s.channelId);
    const connect = await s.holdConnectOpen();
    // X answers A's refresh of the old grant; A's write waits behind the connect's for the row.
    refresh.open();
    await s.waits(2);
    await expectConnectedAndPublished(s, refresh.fromA, await connect.finish());
  });

  it('an unreadable token outside a refresh marks nothing: the mark waits for the connect', async () => {
    const s = await secondConnectWaiting();
    await sealedWithAnotherKey(s.a, s.channelId);
    const connect = await s.holdConnectOpen();
    const fromA = publishNow(s.a, s.channelId, 'Published while the person reconnects.');
    await s.waits(2);
    await expectConnectedAndPublished(s, fromA, await connect.finish());
  });
});
