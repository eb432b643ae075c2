import { describe, expect, it } from 'vitest';
import { connectLive } from '../helpers/live.js';
import { api, type TestService } from '../helpers/start.js';
import {
  handle,
  instancesBeside,
  nextTokenReadStalled,
  publishNow,
  sealedWithAnotherKey,
} from './instances-beside.js';

/**
 * A channel is marked `needs_reconnect` outside any token refresh too: when no tokens are stored
 * for it, or when the stored access token cannot be opened (SERVICE_SECRET_KEY changed). Such a
 * mark reads the tokens, then marks. If the person connects the channel again between the two
 * (through another instance, or while this one stalls: a GC pause, a busy event loop), the mark
 * must not land on the channel the person just connected. Instance A's read of the tokens is
 * stalled until the person has reconnected through instance B.
 */

describe('a mark made outside a token refresh, while the person reconnects the channel', () => {
  const { twoLive } = instancesBeside();

  async function reconnectedWhileStalled(spoil: (a: TestService, channelId: string) => Promise<void>) {
    const { stack, a, b, channelId } = await twoLive();
    const brandId = (await api(a.url, 'GET', `/v1/channels/${channelId}`)).body.brand_id as string;
    await spoil(a, channelId);
    const stalled = nextTokenReadStalled(a);
    const fromA = publishNow(a, channelId, 'Published while the person reconnects.');
    await stalled.read();
    // The person disconnects and connects the same account again, through B (Settings →
    // Channels): new tokens, the same channel connected.
    expect((await api(b.url, 'DELETE', `/v1/channels/${channelId}`)).status).toBe(200);
    expect(await connectLive(b, brandId, 'x')).toMatchObject({ id: channelId, status: 'connected' });
    stalled.go();
    const ra = await fromA;
    const channel = await api(a.url, 'GET', `/v1/channels/${channelId}`);
    return { stack, ra, channel };
  }

  it('an unreadable token read before the reconnect does not mark the channel; the new tokens publish', async () => {
    const { stack, ra, channel } = await reconnectedWhileStalled(sealedWithAnotherKey);
    expect([channel.body.status, channel.body.status_reason]).toEqual(['connected', null]);
    expect([ra.status, ra.body.status]).toEqual([201, 'published']);
    expect(stack.x.tweets.size).toBe(1);
  });

  it('no stored tokens read before the reconnect does not mark the channel; the new tokens publish', async () => {
    // A connected channel without tokens (what the mark is for: e.g. one table restored alone).
    const { stack, ra, channel } = await reconnectedWhileStalled(async (a, channelId) => {
      await handle(a).ctx.db.run('DELETE FROM channel_credentials WHERE channel_id = ?', [channelId]);
    });
    expect([channel.body.status, channel.body.status_reason]).toEqual(['connected', null]);
    expect([ra.status, ra.body.status]).toEqual([201, 'published']);
    expect(stack.x.tweets.size).toBe(1);
  });

  it('with nothing replaced meanwhile, an unreadable token still marks the channel', async () => {
    const { stack, a, channelId } = await twoLive();
    await sealedWithAnotherKey(a, channelId);
    const ra = await publishNow(a, channelId, 'Published with a lost key.');
    expect([ra.status, ra.body.status]).toEqual([201, 'failed']);
    expect(ra.body.failure).toMatch(/^CHANNEL_NEEDS_RECONNECT:/);
    const channel = await api(a.url, 'GET', `/v1/channels/${channelId}`);
    expect(channel.body.status).toBe('needs_reconnect');
    expect(channel.body.status_reason).toMatch(/stored tokens cannot be read/);
    expect(stack.x.tweets.size).toBe(0);
  });
});
