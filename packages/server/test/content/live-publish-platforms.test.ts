import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import type { Platform } from '../../src/content/domain.js';
import { ANSWER_MAX_BYTES, TOKEN_ANSWER_MAX_BYTES } from '../../src/content/publishers/answer-caps.js';
import { tick } from '../../src/content/services/sandbox.js';
import { ManualClock } from '../../src/platform/clock.js';
import type { FakeCore } from '../fakes/fake-core.js';
import { type HostileFront, startHostileFront } from '../fakes/hostile-front.js';
import { type LiveStack, startLive } from '../helpers/live.js';
import { connectViaProxy, PUBLIC_URL } from '../helpers/public-url.js';
import { api, type TestService } from '../helpers/start.js';
import { animatedGif } from './gif-fixtures.js';

/**
 * The publish failures that live-publish.test.ts proves for X, through the service over HTTP, on
 * LinkedIn, Instagram and Threads: a 429 waits for Retry-After and then goes out once; a timeout
 * during the publish call makes the post unconfirmed and it is never sent again, even after a
 * restart. (The providers' own tests cover the mapping of each platform's answers.)
 */

const LABEL = { linkedin: 'LinkedIn', instagram: 'Instagram', threads: 'Threads' } as const;

const PUBLISH: Record<Exclude<Platform, 'x'>, string> = {
  linkedin: 'POST /rest/posts',
  instagram: 'POST /:user/media_publish',
  threads: 'POST /:user/threads_publish',
};

let live: LiveStack | undefined;
afterEach(async () => {
  await live?.close();
  live = undefined;
});

async function setUp(
  platform: Exclude<Platform, 'x'>,
  timeoutMs?: number,
  image?: Buffer,
  front?: HostileFront,
) {
  // A hostile front, when given, sits at the platform's API and authorise URLs (its token endpoint).
  const before = front && { [platform]: (url: string) => front.forwardTo(url) };
  live = await startLive({
    clock: new ManualClock(),
    ...(before ? { apiUrlOf: before, authUrlOf: before, linkedin: { refreshTokens: true } } : {}),
    config: {
      content: { port: 0, publicUrl: PUBLIC_URL },
      ...(timeoutMs ? { platformTimeoutMs: timeoutMs } : {}),
    },
  });
  const stack = live;
  const svc = stack.svc;
  const brandId = (await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } })).body.id;
  const channelId = await connectViaProxy(svc, brandId, platform);
  const fake: FakeCore & { posts: Map<string, unknown> } = stack[platform];
  // Instagram has no text-only posts: every post here carries one library image.
  const jpeg =
    image ??
    (await sharp({ create: { width: 1080, height: 1080, channels: 3, background: '#335577' } })
      .jpeg()
      .toBuffer());
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(jpeg)]), image ? 'wave.gif' : 'chart.jpg');
  const upload = await fetch(`${svc.url}/v1/brands/${brandId}/media`, { method: 'POST', body: form });
  expect(upload.status).toBe(201);
  const assetId = ((await upload.json()) as { id: string }).id;
  // Without the image where the platform takes text alone and the front is in the way: LinkedIn
  // hands out upload URLs on its own host, which is not the front's, and they are refused.
  const withImage = platform === 'instagram' || !front;
  const post = async (text: string) => {
    const draft = await api(svc.url, 'POST', '/v1/drafts', { body: { brand_id: brandId, platform, text } });
    expect(draft.status).toBe(201);
    const attached = withImage
      ? await api(svc.url, 'POST', `/v1/drafts/${draft.body.id}/media`, { body: { asset_id: assetId } })
      : { status: 200 };
    expect(attached.status).toBe(200);
    return api(svc.url, 'POST', '/v1/posts', { body: { draft_id: draft.body.id, channel_id: channelId } });
  };
  // Requests are logged with their real path (`POST /1784…/media_publish`); the route names `:user`.
  const [method, path] = PUBLISH[platform].split(' ') as [string, string];
  const tail = path.replace('/:user', '');
  const publishCalls = () =>
    fake.requests.filter((r) => r.startsWith(`${method} `) && r.endsWith(tail)).length;
  return {
    svc,
    fake,
    post,
    channelId,
    publishCalls,
    pass: (s: TestService = svc) => tick((s.handle as ContentHandle).ctx),
  };
}

describe.each(['linkedin', 'instagram', 'threads'] as const)('live publishing to %s', (platform) => {
  it('a 429 keeps the post scheduled until Retry-After, with no call before then; then it goes out once', async () => {
    const { svc, fake, post, publishCalls, pass } = await setUp(platform);
    fake.failNext(PUBLISH[platform], { kind: 'status', status: 429, headers: { 'retry-after': '120' } });
    const res = await post('Rate limited first.');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      status: 'scheduled',
      retry_at: new Date(svc.clock.now().getTime() + 120_000).toISOString(),
    });
    expect(res.body.notice).toContain('PLATFORM_RATE_LIMITED');
    expect(publishCalls()).toBe(1);
    expect(fake.posts.size).toBe(0);

    svc.clock.advance(60_000);
    await pass();
    expect(publishCalls()).toBe(1);
    svc.clock.advance(60_000);
    expect((await pass()).published).toEqual([res.body.id]);
    const after = await api(svc.url, 'GET', `/v1/posts/${res.body.id}`);
    expect(after.body).toMatchObject({ status: 'published', retry_at: null, notice: null });
    svc.clock.advance(3_600_000);
    await pass();
    expect(publishCalls()).toBe(2);
    expect(fake.posts.size).toBe(1);
    expect(fake.violations).toEqual([]);
  });

  it('a timeout during publish makes the post unconfirmed: one post, never sent again, even after a restart', async () => {
    const { svc, fake, post, publishCalls, pass } = await setUp(platform, 1000);
    fake.failNext(PUBLISH[platform], { kind: 'hang', afterAccept: true });
    const res = await post('Into the void.');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status).toBe('unconfirmed');
    expect(res.body.notice).toContain('PUBLISH_UNCONFIRMED');
    expect(fake.posts.size).toBe(1);

    svc.clock.advance(24 * 3_600_000);
    await pass();
    const restarted = await svc.restart();
    if (live) live.svc = restarted;
    await pass(restarted);
    const after = await api(restarted.url, 'GET', `/v1/posts/${res.body.id}`);
    expect(after.body.status).toBe('unconfirmed');
    expect(publishCalls()).toBe(1);
    expect(fake.posts.size).toBe(1);
    expect(fake.violations).toEqual([]);
  });
});

/**
 * What LinkedIn, Instagram and Threads answer is outside input, read within a cap
 * (content/publishers/answer-caps.ts), as platform-answer-bounds.test.ts proves for X: a hostile
 * front before the fake answers one scripted call without end. The reader hangs up at the cap, the
 * call fails with a clear error, and the server goes on serving. Counted, never timed.
 */
describe.each(['linkedin', 'instagram', 'threads'] as const)('%s answers read within bounds', (platform) => {
  /** What the front may get out past the cap before it sees the close: the sockets' buffers. */
  const BUFFERED_SLACK = 64 * 1024 * 1024;
  /** The publish call as the front sees it: with the Graph version before the user. */
  const PUBLISHED = PUBLISH[platform].replace('/:user/', '/:version/:user/');
  /** The refresh: LinkedIn's token endpoint, Meta's long-lived token renewal. */
  const REFRESH = platform === 'linkedin' ? 'POST /oauth/v2/accessToken' : 'GET /refresh_access_token';
  let front: HostileFront;
  afterEach(() => front?.close());

  async function stillServes(svc: TestService, postId: string, status: string) {
    expect((await api(svc.url, 'GET', '/health')).status).toBe(200);
    expect((await api(svc.url, 'GET', `/v1/posts/${postId}`)).body.status).toBe(status);
  }

  it('cuts off an endless answer to the publish call at the cap: the post is unconfirmed, never sent twice', async () => {
    front = await startHostileFront();
    const { svc, fake, post, publishCalls } = await setUp(platform, undefined, undefined, front);
    // The platform took the post, then answered without end: the post may be live, so unconfirmed.
    front.script(PUBLISHED, { kind: 'endless' }, { forward: true });
    const res = await post('Answered without end.');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status).toBe('unconfirmed');
    expect(res.body.notice).toContain('PUBLISH_UNCONFIRMED');
    expect(res.body.notice).toContain(
      `with more than ${ANSWER_MAX_BYTES[platform]} bytes (the most read from ${LABEL[platform]})`,
    );
    expect(await front.served[0]?.closed).toBe(true);
    expect(front.served[0]?.bytesSent).toBeGreaterThan(ANSWER_MAX_BYTES[platform]);
    expect(front.served[0]?.bytesSent).toBeLessThan(ANSWER_MAX_BYTES[platform] + BUFFERED_SLACK);
    expect(publishCalls()).toBe(1);
    expect(fake.posts.size).toBe(1);
    await stillServes(svc, res.body.id, 'unconfirmed');
  });

  it('holds a token refresh to the small token cap: the post waits, the channel stays connected', async () => {
    front = await startHostileFront();
    const { svc, fake, post, channelId, publishCalls, pass } = await setUp(
      platform,
      undefined,
      undefined,
      front,
    );
    // Within five minutes of the token's expiry, a publish refreshes it first.
    const [row] = await (svc.handle as ContentHandle).ctx.db.all<{ expires_at: string }>(
      'SELECT expires_at FROM channel_credentials WHERE channel_id = ?',
      [channelId],
    );
    svc.clock.set(Date.parse(row?.expires_at as string) - 4 * 60_000);
    front.script(REFRESH, { kind: 'endless' });
    const res = await post('After a refresh that never ends.');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // No answer from the token endpoint says nothing of the grant: the post is tried again later.
    expect(res.body.status).toBe('scheduled');
    expect(res.body.retry_at).not.toBeNull();
    expect(res.body.notice).toContain(
      `with more than ${TOKEN_ANSWER_MAX_BYTES} bytes (the most read from ${LABEL[platform]}'s token endpoint)`,
    );
    expect(await front.served[0]?.closed).toBe(true);
    expect(front.served[0]?.bytesSent).toBeLessThan(TOKEN_ANSWER_MAX_BYTES + BUFFERED_SLACK);
    expect(publishCalls()).toBe(0);
    expect((await api(svc.url, 'GET', `/v1/channels/${channelId}`)).body.status).toBe('connected');
    await stillServes(svc, res.body.id, 'scheduled');
    // The token endpoint is well again (the front passes everything through): the post goes out.
    svc.clock.advance(60 * 60_000);
    expect((await pass()).published).toEqual([res.body.id]);
    expect(fake.posts.size).toBe(1);
  });
});

describe('an animated GIF from the media library', () => {
  it.each(['instagram', 'threads'] as const)(
    'is refused for %s before any call, never posted as a still',
    async (platform) => {
      const { fake, post } = await setUp(platform, undefined, await animatedGif(4));
      const calls = fake.requests.length;
      const res = await post('It waves.');
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.status).toBe('failed');
      expect(res.body.failure).toMatch(
        /^POST_INVALID_FOR_PLATFORM: (Instagram|Threads) takes no animated GIF \(.*\)\. Attach one of the asset's crops/,
      );
      expect(fake.requests.length).toBe(calls);
      expect(fake.posts.size).toBe(0);
    },
  );

  it('goes to LinkedIn as the GIF itself', async () => {
    const { fake, post } = await setUp('linkedin', undefined, await animatedGif(4));
    const res = await post('It waves.');
    expect(res.body.status, JSON.stringify(res.body)).toBe('published');
    const images = [...(fake as unknown as { images: Map<string, { type: string }> }).images.values()];
    expect(images.map((i) => i.type)).toEqual(['image/gif']);
    expect(fake.violations).toEqual([]);
  });
});
