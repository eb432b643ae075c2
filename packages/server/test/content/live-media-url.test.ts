import sharp from 'sharp';
import { afterEach, expect, it } from 'vitest';
import { connectLive, type LiveStack, startLive } from '../helpers/live.js';
import { api } from '../helpers/start.js';

/**
 * Instagram and Threads fetch each image from its URL under CONTENT_PUBLIC_URL. The publisher's
 * own check must agree with the provider's: SERVICE_MEDIA_ALLOW_PRIVATE (local fakes, demos such
 * as examples/live-local) lets a plain http loopback address through; without it, only https.
 */

let stack: LiveStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function publishWithImage(platform: 'instagram' | 'threads', mediaAllowPrivate: boolean) {
  stack = await startLive({ config: { mediaAllowPrivate } });
  const { svc } = stack;
  // As an operator sets CONTENT_PUBLIC_URL: the address the server is reached on.
  svc.config.content.publicUrl = svc.url;
  const brandId = (await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } })).body.id;
  await connectLive(svc, brandId, platform);
  const jpeg = await sharp({ create: { width: 1080, height: 1080, channels: 3, background: '#3366aa' } })
    .jpeg()
    .toBuffer();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'square.jpg');
  const asset = await fetch(`${svc.url}/v1/brands/${brandId}/media`, { method: 'POST', body: form });
  expect(asset.status).toBe(201);
  const draft = await api(svc.url, 'POST', '/v1/drafts', {
    body: { brand_id: brandId, platform, text: 'Four time zones, no standup.' },
  });
  await api(svc.url, 'POST', `/v1/drafts/${draft.body.id}/media`, {
    body: { asset_id: ((await asset.json()) as { id: string }).id },
  });
  return (await api(svc.url, 'POST', '/v1/posts', { body: { draft_id: draft.body.id } })).body;
}

for (const platform of ['instagram', 'threads'] as const) {
  it(`${platform}: with SERVICE_MEDIA_ALLOW_PRIVATE, an image under an http loopback CONTENT_PUBLIC_URL goes out`, async () => {
    const post = await publishWithImage(platform, true);
    expect(post, JSON.stringify(post)).toMatchObject({ status: 'published', failure: null });
    const fake = stack?.[platform];
    const [published] = [...(fake?.posts.values() ?? [])];
    expect(published?.imageUrls[0]).toMatch(new RegExp(`^${stack?.svc.url}/media/`));
    expect(fake?.violations).toEqual([]);
  });
}

it('without SERVICE_MEDIA_ALLOW_PRIVATE, the same post fails with MEDIA_NOT_PUBLIC before any call', async () => {
  const post = await publishWithImage('instagram', false);
  expect(post.status).toBe('failed');
  expect(post.failure).toMatch(/^MEDIA_NOT_PUBLIC: .*CONTENT_PUBLIC_URL must be a public https address/);
  expect(stack?.instagram.posts.size).toBe(0);
  expect(stack?.instagram.containers.size).toBe(0);
});
