import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MEDIA_LIMITS } from '../../src/content/media/limits.js';
import { GIF_MAX_PIXELS } from '../../src/content/media/render.js';
import { api } from '../helpers/start.js';
import { animatedGif } from './gif-fixtures.js';
import { type MediaTestService, startMediaService } from './media-harness.js';

/**
 * An animated GIF is decoded whole (every frame at once, 4 bytes a pixel), so its frames together
 * get a budget of their own, GIF_MAX_PIXELS, under the one for stills. With the default limits, a
 * GIF inside the stills' budget but over the GIF one is refused from its header. The old code
 * took it and decoded every frame (28 million pixels, about 112 MB).
 */
describe('the animated GIF pixel budget, at the default limits', () => {
  let svc: MediaTestService;
  beforeAll(async () => {
    svc = await startMediaService();
    await svc.addBrand('brd_gif');
  });
  afterAll(() => svc.close());

  // Frames of 2000×2000, one more than the budget holds (solid colours: a small file).
  const SIDE = 2000;
  const SCREEN = SIDE * SIDE;
  const frames = Math.floor(GIF_MAX_PIXELS / SCREEN) + 1;

  it('refuses with 415 a GIF over the GIF budget and under the stills one, before decoding a frame', async () => {
    expect(frames * SCREEN).toBeGreaterThan(GIF_MAX_PIXELS);
    expect(frames * SCREEN).toBeLessThanOrEqual(DEFAULT_MEDIA_LIMITS.maxInputPixels);
    const before = (await api(svc.url, 'GET', '/v1/brands/brd_gif/media')).body.media.length;
    const form = new FormData();
    form.append(
      'file',
      new Blob([new Uint8Array(await animatedGif(frames, SIDE, SIDE))], { type: 'image/gif' }),
      'big.gif',
    );
    const res = await fetch(`${svc.url}/v1/brands/brd_gif/media`, { method: 'POST', body: form });
    const body = (await res.json()) as { error: { code: string; message: string; param?: string } };
    expect(res.status, JSON.stringify(body)).toBe(415);
    expect(body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA', param: 'file' });
    expect(body.error.message).toBe(
      `The GIF's ${frames} frames of ${SIDE}×${SIDE} make more than ${GIF_MAX_PIXELS.toLocaleString('en')} pixels in all. Make it smaller or shorter.`,
    );
    expect((await api(svc.url, 'GET', '/v1/brands/brd_gif/media')).body.media.length).toBe(before);
  });
});
