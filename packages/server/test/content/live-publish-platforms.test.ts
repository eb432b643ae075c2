import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import type { Platform } from '../../src/content/domain.js';
import { tick } from '../../src/content/services/sandbox.js';
import { ManualClock } from '../../src/platform/clock.js';
import type { FakeCore } from '../fakes/fake-core.js';
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

async function setUp(platform: Exclude<Platform, 'x'>, timeoutMs?: number, image?: Buffer) {
  live = await startLive({
    clock: new ManualClock(),
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
  const post = async (text: string) => {
    const draft = await api(svc.url, 'POST', '/v1/drafts', { body: { brand_id: brandId, platform, text } });
    expect(draft.status).toBe(201);
    const attached = await api(svc.url, 'POST', `/v1/drafts/${draft.body.id}/media`, {
      body: { asset_id: assetId },
    });
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
