import { describe, expect, it } from 'vitest';
import { connectLive } from '../helpers/live.js';
import { api } from '../helpers/start.js';
import { instancesBeside, nextRefreshHeld, publishNow, storedTokens, until } from './instances-beside.js';

/**
 * The person disconnects a channel and connects it again (as Settings → Channels has them do) while
 * a token refresh of it is in flight on another instance: the connect does not wait for the
 * refresh lease, so what the refresh may write when it ends is decided in the database
 * (channel-credentials.ts, Held). Instance A's publish starts the refresh, X holds it, and the
 * person acts through instance B meanwhile.
 */

describe('a refresh in flight when the person reconnects the channel', () => {
  const { twoLive } = instancesBeside();

  /** Two live instances, A's publish held in its token refresh at X. */
  async function refreshHeld() {
    const { stack, a, b, channelId } = await twoLive();
    const brandId = (await api(a.url, 'GET', `/v1/channels/${channelId}`)).body.brand_id as string;
    const x = nextRefreshHeld(stack, a.clock);
    const fromA = publishNow(a, channelId, 'Published while the person reconnects.');
    await until(() => x.refreshes() === 1);
    /** Through B: disconnect, then the whole connect of the same account; the new tokens. */
    const reconnect = async () => {
      expect((await api(b.url, 'DELETE', `/v1/channels/${channelId}`)).status).toBe(200);
      expect(await connectLive(b, brandId, 'x')).toMatchObject({ id: channelId, status: 'connected' });
      return storedTokens(a, channelId);
    };
    return { stack, a, b, channelId, x, fromA, reconnect };
  }

  it('stores nothing over the new tokens when the old grant still refreshes, and publishes with the new ones', async () => {
    const { stack, a, channelId, x, fromA, reconnect } = await refreshHeld();
    // X keeps the old grant working.
    const connected = await reconnect();

    // X answers A's refresh of the old grant with good tokens: they are not the person's.
    x.open();
    const ra = await fromA;
    expect([ra.status, ra.body.status]).toEqual([201, 'published']);
    expect(await storedTokens(a, channelId)).toEqual(connected);
    // The held refresh and the reconnect's code exchange; A did not refresh the new tokens.
    expect(x.refreshes()).toBe(2);
    const channel = await api(a.url, 'GET', `/v1/channels/${channelId}`);
    expect([channel.body.status, channel.body.status_reason]).toEqual(['connected', null]);

    // Two hours on, the next publish refreshes with the reconnect's refresh token.
    a.clock.advance(2 * 3_600_000);
    expect((await publishNow(a, channelId, 'Two hours later.')).body.status).toBe('published');
    expect((await storedTokens(a, channelId))?.refresh).not.toBe(connected?.refresh);
    expect(stack.x.tweets.size).toBe(2);
    expect(stack.x.violations).toEqual([]);
  });

  it('does not mark the channel needs_reconnect when the platform refuses the old grant, and publishes with the new tokens', async () => {
    const { stack, a, channelId, x, fromA, reconnect } = await refreshHeld();
    // The person removed the app at X (so the refresh token A sent no longer works) first.
    stack.x.revokeApp();
    const connected = await reconnect();

    // X refuses A's refresh. The person just connected the channel: it stays connected.
    x.open();
    const ra = await fromA;
    expect([ra.status, ra.body.status]).toEqual([201, 'published']);
    const channel = await api(a.url, 'GET', `/v1/channels/${channelId}`);
    expect([channel.body.status, channel.body.status_reason]).toEqual(['connected', null]);
    expect(await storedTokens(a, channelId)).toEqual(connected);
    expect(stack.x.tweets.size).toBe(1);
    expect(stack.x.violations).toEqual([]);
  });

  it('stores no tokens for a channel the person disconnected meanwhile', async () => {
    const { stack, a, b, channelId, x, fromA } = await refreshHeld();
    const gone = await api(b.url, 'DELETE', `/v1/channels/${channelId}`);
    expect(gone.body).toMatchObject({ status: 'disconnected' });

    x.open();
    const ra = await fromA;
    expect([ra.status, ra.body.status]).toEqual([201, 'failed']);
    expect(ra.body.failure).toMatch(/^CHANNEL_DISCONNECTED:/);
    expect(await storedTokens(a, channelId)).toBeNull();
    expect((await api(a.url, 'GET', `/v1/channels/${channelId}`)).body.status).toBe('disconnected');
    expect(stack.x.tweets.size).toBe(0);
  });
});
