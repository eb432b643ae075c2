// Outside review of stop 36's GIF handling. The threat: an upload of up to the image cap (20 MB)
// made of millions of tiny extension blocks, which decoders skip over (sharp decodes and
// re-encodes it, off the event loop, in a fraction of a second). The step that keeps the upload
// when its re-encode is larger walked every block in one synchronous call, with a Buffer view kept
// per graphic-control block: a 19 MB file of them held the event loop about 2 s and took 290 MB of
// heap, to find the upload no smaller than its 153-byte re-encode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readerWork, SLICE_UNITS } from '../../src/platform/sliced/work.js';
import { watchSlices } from '../helpers/slice-watch.js';
import { animatedGif, uploadGif } from './gif-fixtures.js';
import { type MediaTestService, startMediaService } from './media-harness.js';

/** `gif` with `count` copies of `block` after its colour table, where the first frame's extensions go. */
function withBlocks(gif: Buffer, block: number[], count: number): Buffer {
  const flags = gif[10] ?? 0;
  const tableEnd = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  const blocks = Buffer.alloc(block.length * count);
  for (let i = 0; i < count; i++) blocks.set(block, i * block.length);
  return Buffer.concat([gif.subarray(0, tableEnd), blocks, gif.subarray(tableEnd)]);
}

/** An empty comment extension (dropped from a kept upload) and a graphic control (kept). */
const EMPTY_COMMENT = [0x21, 0xfe, 0];
const GRAPHIC_CONTROL = [0x21, 0xf9, 4, 0, 10, 0, 0, 0];

describe('an animated GIF of millions of tiny blocks', () => {
  let svc: MediaTestService;
  beforeAll(async () => {
    svc = await startMediaService();
    await svc.addBrand('brd_gif');
  });
  afterAll(() => svc.close());

  it('is walked in slices, the event loop answering between them', async () => {
    const count = 3_000_000;
    const gif = withBlocks(await animatedGif(2), EMPTY_COMMENT, count);
    let healthy: Promise<number> | undefined;
    // At the walk's first pause, a request to the same server: answered while the walk goes on.
    const slices = watchSlices((yields) => {
      if (yields === 1) healthy = fetch(`${svc.url}/v1/brands/brd_gif/media`).then((r) => r.status);
    });
    const res = await uploadGif(svc, gif);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The old code walked all 3 million blocks in one call: no pause at all.
    expect(slices.yields).toBeGreaterThanOrEqual(Math.floor(count / SLICE_UNITS) - 1);
    expect(slices.longestSlice).toBeLessThanOrEqual(SLICE_UNITS + 2);
    expect(await healthy).toBe(200);
    // Its re-encode is far smaller than the upload: that is what is kept.
    expect(res.body.bytes).toBeLessThan(10_000);
  }, 60_000);

  it('stops keeping blocks once the upload can no longer come out smaller than its re-encode', async () => {
    const count = 1_000_000;
    const gif = withBlocks(await animatedGif(2), GRAPHIC_CONTROL, count);
    const before = readerWork.units;
    const res = await uploadGif(svc, gif);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.bytes).toBeLessThan(10_000);
    // A step per block walked: the walk ended within the first few thousand of a million blocks.
    expect(readerWork.units - before).toBeLessThan(5_000);
  }, 60_000);
});
