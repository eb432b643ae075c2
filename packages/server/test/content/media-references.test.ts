import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import { ORPHAN_MIN_AGE_MS } from '../../src/content/media/service.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand } from './helpers.js';
import { mediaTools } from './media-tools.js';

/** What a draft or post refers to keeps resolving: focal-point changes and deletion included. */
describe('media that drafts and posts refer to', () => {
  let svc: TestService;
  let brand: { id: string; channels: Record<string, string> };
  beforeAll(async () => {
    svc = await startTestService('content');
    brand = await makeBrand(svc, { channels: ['x'] });
  });
  afterAll(() => svc.close());

  const { fetchImage, expectImage, mediaUrls, upload, draftWith } = mediaTools(
    () => svc,
    () => brand.id,
  );

  it('keeps the draft’s and the published post’s image after the focal point changes', async () => {
    const asset = await upload();
    const published = await draftWith(asset.id, 'Our week in one picture.');
    const post = await api(svc.url, 'POST', '/v1/posts', { body: { draft_id: published.id } });
    expect(post.status).toBe(201);
    const kept = await draftWith(asset.id, 'Another post with the same picture.');
    const [postUrl] = mediaUrls(post.body.parts);
    expect(postUrl).toBe(asset.variants.wide.url);
    const before = await expectImage(postUrl as string);

    const moved = await api(svc.url, 'PATCH', `/v1/media/${asset.id}`, {
      body: { focal_point: { x: 0.9, y: 0.5 } },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.variants.wide.url).not.toBe(asset.variants.wide.url);

    // Every URL the draft, the post and the asset report answers with an image.
    const draftNow = await api(svc.url, 'GET', `/v1/drafts/${kept.id}`);
    const postNow = await api(svc.url, 'GET', `/v1/posts/${post.body.id}`);
    const urls = [
      ...mediaUrls(draftNow.body.parts),
      ...mediaUrls(postNow.body.parts),
      ...Object.values(moved.body.variants).map((v: any) => v.url as string),
    ];
    expect(urls.length).toBeGreaterThanOrEqual(7);
    for (const url of urls) await expectImage(url);

    // The post still shows exactly what was published; the asset shows the new crop.
    expect((await fetchImage(postUrl as string)).bytes.equals(before)).toBe(true);
    const fresh = await expectImage(moved.body.variants.wide.url);
    expect(fresh.equals(before)).toBe(false);

    // Old crops nobody refers to are gone, and are not served.
    for (const name of ['square', 'portrait', 'landscape'])
      expect((await fetchImage(asset.variants[name].url)).status).toBe(404);
  });

  it('deleting an asset removes it from the library but not from the drafts and posts using it', async () => {
    const asset = await upload();
    const draft = await draftWith(asset.id, 'A picture we will delete from the library.');
    const post = await api(svc.url, 'POST', '/v1/posts', { body: { draft_id: draft.id } });
    const [postUrl] = mediaUrls(post.body.parts);

    const del = await api(svc.url, 'DELETE', `/v1/media/${asset.id}`);
    expect(del.body).toEqual({ id: asset.id, deleted: true });
    expect((await api(svc.url, 'GET', `/v1/media/${asset.id}`)).status).toBe(404);
    const list = await api(svc.url, 'GET', `/v1/brands/${brand.id}/media?limit=100`);
    expect(list.body.media.map((m: any) => m.id)).not.toContain(asset.id);

    await expectImage(postUrl as string);
    // Variants nothing refers to stop working at once.
    expect((await fetchImage(asset.variants.square.url)).status).toBe(404);
    expect((await fetchImage(asset.variants.original.url)).status).toBe(404);
    // It cannot be attached again.
    const other = await api(svc.url, 'POST', '/v1/drafts', {
      body: { brand_id: brand.id, platform: 'x', text: 'Try the deleted picture.' },
    });
    const again = await api(svc.url, 'POST', `/v1/drafts/${other.body.id}/media`, {
      body: { asset_id: asset.id },
    });
    expect(again.status).toBe(404);

    // The daily sweep of the background pass keeps what is referred to, however old, and removes
    // an old stray; it runs once a day in the deployment, not on every pass.
    const dir = join(svc.dataDir, 'media', asset.id);
    const ageAll = () => {
      const t = new Date(Date.now() - ORPHAN_MIN_AGE_MS - 60_000);
      for (const f of readdirSync(dir)) utimesSync(join(dir, f), t, t);
    };
    writeFileSync(join(dir, 'stray.jpg'), 'x');
    ageAll();
    const handle = svc.handle as ContentHandle;
    expect(await handle.backgroundPass()).toBe(true);
    expect(readdirSync(dir)).not.toContain('stray.jpg');
    await expectImage(postUrl as string);
    writeFileSync(join(dir, 'stray.jpg'), 'x');
    ageAll();
    expect(await handle.backgroundPass()).toBe(true);
    expect(readdirSync(dir)).toContain('stray.jpg');
  });

  /** A scheduled post (one published now could not be edited or deleted). */
  const daysAhead = (days: number) => new Date(svc.clock.now().getTime() + days * 86_400_000).toISOString();

  it('a reference lasts exactly as long as a post or draft version shows the file', async () => {
    // A brand of its own: deleting the brand is how a draft goes (drafts have no DELETE).
    const own = await makeBrand(svc, { channels: ['x'] });
    const asset = await upload(own.id);
    const draft = await draftWith(asset.id, 'A picture, then no post and no draft.', own.id);
    const post = await api(svc.url, 'POST', '/v1/posts', {
      body: { draft_id: draft.id, scheduled_for: daysAhead(3) },
    });
    expect(post.status).toBe(201);
    const [url] = mediaUrls(post.body.parts);
    expect((await api(svc.url, 'DELETE', `/v1/media/${asset.id}`)).status).toBe(200);
    await expectImage(url as string);

    // The post's parts are rewritten (its text changes): the reference follows, not lost.
    const edited = await api(svc.url, 'PATCH', `/v1/posts/${post.body.id}`, {
      body: { text: 'New words, same picture.' },
    });
    expect(edited.status).toBe(200);
    expect(mediaUrls(edited.body.parts)).toEqual([url]);
    await expectImage(url as string);

    // The post goes: the draft's version still shows the file. The draft goes (with its brand):
    // nothing does.
    expect((await api(svc.url, 'DELETE', `/v1/posts/${post.body.id}`)).status).toBe(200);
    await expectImage(url as string);
    expect((await api(svc.url, 'DELETE', `/v1/brands/${own.id}`)).status).toBe(200);
    expect((await fetchImage(url as string)).status).toBe(404);
  });

  it('serves nothing for a referenced file name under another asset id', async () => {
    const asset = await upload();
    const draft = await draftWith(asset.id, 'Guarding the lookup.');
    const [url] = mediaUrls(draft.parts);
    const file = (url as string).split('/').at(-1);
    expect((await fetchImage(`/media/med_someoneelse/${file}`)).status).toBe(404);
    expect((await fetchImage(`/media/${asset.id}/..%2F${file}`)).status).toBe(404);
  });
});
