import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIF_MAX_FRAMES } from '../../src/content/media/render.js';
import { api } from '../helpers/start.js';
import { animatedGif, frameBomb, GIF_H as H, uploadGif, GIF_W as W, withComment } from './gif-fixtures.js';
import { type MediaTestService, startMediaService } from './media-harness.js';

/**
 * Animated GIFs in the media library, over HTTP: kept animated (every frame), stripped of the
 * text they carried, and refused before decoding when their header declares too much.
 */

const upload = uploadGif;

const fetchBytes = async (svc: MediaTestService, url: string) =>
  Buffer.from(await (await fetch(`${svc.url}${url}`)).arrayBuffer());

describe('animated GIFs in the media library', () => {
  let svc: MediaTestService;
  beforeAll(async () => {
    // Room for five 40×30 frames (6,000 pixels) and not for six: the all-frames budget is tested.
    svc = await startMediaService({ mediaLimits: { maxInputPixels: W * H * 5 } });
    await svc.addBrand('brd_gif');
  });
  afterAll(() => svc.close());

  it('keeps an uploaded GIF animated, every frame and delay, without the text it carried', async () => {
    const res = await upload(svc, withComment(await animatedGif(5), 'GPS 51.5N 0.1W by Alice'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ kind: 'image', mime: 'image/gif', width: W, height: H });
    const original = await fetchBytes(svc, res.body.variants.original.url);
    const meta = await sharp(original).metadata();
    expect({ format: meta.format, pages: meta.pages, delay: meta.delay, loop: meta.loop }).toEqual({
      format: 'gif',
      pages: 5,
      delay: [100, 100, 100, 100, 100],
      loop: 0,
    });
    expect(original.includes(Buffer.from('GPS 51.5N'))).toBe(false);
    // The crops are previews: stills of the first frame.
    for (const name of ['square', 'portrait', 'landscape', 'wide']) {
      const crop = await sharp(await fetchBytes(svc, res.body.variants[name].url)).metadata();
      expect([crop.format, crop.pages ?? 1], name).toEqual(['png', 1]);
    }
    // Posted whole on X and LinkedIn; Instagram and Threads take no GIF, and fit says so.
    const fit = await api(svc.url, 'GET', `/v1/media/${res.body.id}/fit`);
    const byPlatform = Object.fromEntries(
      fit.body.platforms.map((p: { platform: string }) => [p.platform, p]),
    );
    expect(byPlatform.x).toMatchObject({
      preferred_variant: 'original',
      ok: true,
      max_bytes: 15 * 1024 * 1024,
    });
    expect(byPlatform.linkedin).toMatchObject({ preferred_variant: 'original', ok: true });
    // No size to quote where no GIF is taken at all: null, never a limit of 0 bytes.
    for (const platform of ['instagram', 'threads']) {
      expect(byPlatform[platform], platform).toMatchObject({
        ok: false,
        max_bytes: null,
        why: `${platform} takes no animated GIF; its crops are stills of the first frame.`,
      });
      expect(byPlatform[platform].warnings.join(' ')).toContain('takes no animated GIF');
    }
    expect(byPlatform.linkedin.max_bytes).toBe(8 * 1024 * 1024);
  });

  it('re-renders the crops of a GIF around a new focal point as stills, and keeps the animated original', async () => {
    const res = await upload(svc, await animatedGif(3));
    expect(res.status).toBe(201);
    const patched = await api(svc.url, 'PATCH', `/v1/media/${res.body.id}`, {
      body: { focal_point: { x: 0.2, y: 0.8 } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.variants.original).toEqual(res.body.variants.original);
    expect(patched.body.variants.square.url).toMatch(/square\.2\.png$/);
    const crop = await sharp(await fetchBytes(svc, patched.body.variants.square.url)).metadata();
    expect([crop.format, crop.pages ?? 1]).toEqual(['png', 1]);
  });

  it('refuses a GIF declaring more frames than the limit, from its header, with nothing kept', async () => {
    const before = (await api(svc.url, 'GET', '/v1/brands/brd_gif/media')).body.media.length;
    const res = await upload(svc, frameBomb(GIF_MAX_FRAMES + 1));
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA', param: 'file' });
    expect(res.body.error.message).toBe(
      `The GIF has ${GIF_MAX_FRAMES + 1} frames; at most ${GIF_MAX_FRAMES} are accepted (X's limit). Shorten it or lower its frame rate.`,
    );
    expect((await api(svc.url, 'GET', '/v1/brands/brd_gif/media')).body.media.length).toBe(before);
  });

  it('refuses a GIF whose frames together pass the pixel budget, though each frame is small', async () => {
    const res = await upload(svc, await animatedGif(6));
    expect(res.status).toBe(415);
    expect(res.body.error.message).toMatch(
      /^The GIF's 6 frames of 40×30 make more than 6,000 pixels in all\./,
    );
  });
});
