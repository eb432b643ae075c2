import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/start.js';
import { twoColourGif, uploadGif, withComment } from './gif-fixtures.js';
import { type MediaTestService, startMediaService } from './media-harness.js';

/**
 * An animated GIF whose re-encode comes out larger than the upload keeps the upload (without the
 * text it carried), and one that fits the GIF cap neither way is refused: no platform would take
 * it. The cap is X's 15 MB by default; here 1,000 bytes, so the files stay small.
 */

const CAP = 1000;

const upload = uploadGif;

const reencodedSize = async (gif: Buffer) => (await sharp(gif, { animated: true }).gif().toBuffer()).length;

describe('an animated GIF re-encoded larger than it was uploaded', () => {
  let svc: MediaTestService;
  beforeAll(async () => {
    svc = await startMediaService({ mediaLimits: { gifMaxBytes: CAP } });
    await svc.addBrand('brd_gif');
  });
  afterAll(() => svc.close());

  it('keeps the uploaded frames byte for byte, without the comment they carried', async () => {
    const gif = await twoColourGif(4, 40, 30);
    // The premise, checked rather than assumed: sharp's re-encode of this file is larger.
    expect(await reencodedSize(gif)).toBeGreaterThan(gif.length);
    const res = await upload(svc, withComment(gif, 'GPS 51.5N 0.1W by Alice'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ mime: 'image/gif', width: 40, height: 30, bytes: gif.length });
    const served = Buffer.from(
      await (await fetch(`${svc.url}${res.body.variants.original.url}`)).arrayBuffer(),
    );
    expect(served.equals(gif)).toBe(true);
    const meta = await sharp(served).metadata();
    expect([meta.pages, meta.loop]).toEqual([4, 0]);
  });

  it('refuses with 413, naming the limit, a GIF over the cap both re-encoded and as uploaded', async () => {
    const gif = await twoColourGif(6, 120, 90);
    expect(gif.length).toBeGreaterThan(CAP);
    const before = (await api(svc.url, 'GET', '/v1/brands/brd_gif/media')).body.media.length;
    const res = await upload(svc, gif);
    expect(res.status, JSON.stringify(res.body)).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'MEDIA_TOO_LARGE', param: 'file' });
    expect(res.body.error.message).toBe(
      `The animated GIF comes to ${gif.length} bytes, re-encoded or as uploaded; no platform takes an animated GIF over ${CAP} bytes (X's limit). Make it smaller, shorter or with fewer colours.`,
    );
    expect((await api(svc.url, 'GET', '/v1/brands/brd_gif/media')).body.media.length).toBe(before);
  });
});
