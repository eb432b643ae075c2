import sharp from 'sharp';
import { expect } from 'vitest';
import { api, type TestService } from '../helpers/start.js';

/** Left half red, right half blue: crops around different focal points differ in bytes. */
const twoTone = () =>
  sharp({ create: { width: 2000, height: 1000, channels: 3, background: '#ff0000' } })
    .composite([
      {
        input: {
          create: { width: 1000, height: 1000, channels: 3, background: '#0000ff' },
        },
        left: 1000,
        top: 0,
      },
    ])
    .jpeg()
    .toBuffer();

/**
 * Uploading, attaching and fetching media on the service `svc()` returns, in `defaultBrandId()`'s brand
 * by default (functions, as both are made in a beforeAll).
 */
export function mediaTools(svc: () => TestService, defaultBrandId: () => string) {
  const fetchImage = async (url: string) => {
    const res = await fetch(`${svc().url}${url}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, type: res.headers.get('content-type'), bytes };
  };
  const expectImage = async (url: string) => {
    const got = await fetchImage(url);
    expect({ url, status: got.status }).toEqual({ url, status: 200 });
    expect(got.type).toMatch(/^image\//);
    const meta = await sharp(got.bytes).metadata();
    expect(meta.width).toBeGreaterThan(0);
    return got.bytes;
  };
  const mediaUrls = (parts: any[]) => parts.flatMap((p) => p.media.map((m: any) => m.url as string));

  async function upload(brandId = defaultBrandId()) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await twoTone())], { type: 'image/jpeg' }), 'hero.jpg');
    const res = await fetch(`${svc().url}/v1/brands/${brandId}/media`, { method: 'POST', body: form });
    expect(res.status).toBe(201);
    return (await res.json()) as any;
  }

  async function draftWith(assetId: string, text: string, brandId = defaultBrandId()) {
    const draft = await api(svc().url, 'POST', '/v1/drafts', {
      body: { brand_id: brandId, platform: 'x', text },
    });
    const attached = await api(svc().url, 'POST', `/v1/drafts/${draft.body.id}/media`, {
      body: { asset_id: assetId },
    });
    expect(attached.status).toBe(200);
    return attached.body;
  }

  return { fetchImage, expectImage, mediaUrls, upload, draftWith };
}
