import { checkpoint, countWork, type Steps } from '../../platform/sliced/work.js';

/**
 * An animated GIF's own bytes, with the blocks that carry text dropped: comment and plain-text
 * extensions, and every application extension but the loop count (NETSCAPE2.0 / ANIMEXTS1.0).
 * That is what the re-encode drops too (XMP packets and editors' notes live there), so an original
 * kept as uploaded, when the re-encode would be larger, carries no more than the re-encode would.
 * Frames, palettes and delays are copied byte for byte.
 *
 * One pass over the file, a block or sub-block a step. The threat is the upload itself: a 20 MB
 * GIF can be 2.6 million 8-byte blocks (graphic controls, which decoders skip over), and this
 * walk once ran them in one call, with a Buffer view kept per block: 2 s of the event loop and
 * 300 MB of heap, to find the upload no smaller than its re-encode. So the walk is sliced
 * (platform/sliced/work.ts: a turn of the event loop every SLICE_UNITS steps), copies what it
 * keeps into one buffer, and stops as soon as what it keeps reaches `under` bytes (the
 * re-encode's size), which it would then not be kept for. Anything that is not a well-formed GIF
 * gives null, and the caller keeps the re-encode.
 */

const EXTENSION = 0x21;
const IMAGE = 0x2c;
const TRAILER = 0x3b;
const GRAPHIC_CONTROL = 0xf9;
const APPLICATION = 0xff;
const LOOP_APPLICATIONS = new Set(['NETSCAPE2.0', 'ANIMEXTS1.0']);

export interface GifBytes {
  /** The file without its text blocks. */
  bytes: Buffer;
  /** The logical screen: the size of every frame as shown. */
  width: number;
  height: number;
}

/** Offset just past the sub-blocks starting at `at` (size byte, data, ..., a zero size byte); -1 when truncated. */
function* skipSubBlocks(gif: Buffer, at: number): Steps<number> {
  let i = at;
  while (i < gif.length) {
    countWork();
    yield* checkpoint();
    const size = gif[i] ?? 0;
    if (size === 0) return i + 1;
    i += size + 1;
  }
  return -1;
}

const colourTableBytes = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);

/**
 * The GIF without its text blocks (see above), when that comes to fewer than `under` bytes; null
 * otherwise, or when it is not a well-formed GIF. Run with readSliced.
 */
export function* gifWithoutText(gif: Buffer, under = gif.length + 1): Steps<GifBytes | null> {
  const magic = gif.subarray(0, 6).toString('latin1');
  if ((magic !== 'GIF89a' && magic !== 'GIF87a') || gif.length < 13) return null;
  const width = gif.readUInt16LE(6);
  const height = gif.readUInt16LE(8);
  const out = Buffer.allocUnsafe(Math.min(gif.length, under));
  let written = 0;
  /** Copies gif[from, to) to the output; false once the output would not be smaller than `under`. */
  const keep = (from: number, to: number) => {
    if (to > gif.length || written + (to - from) >= under) return false;
    written += gif.copy(out, written, from, to);
    return true;
  };
  let i = 13 + colourTableBytes(gif[10] ?? 0);
  if (!keep(0, i)) return null;
  while (i < gif.length) {
    countWork();
    yield* checkpoint();
    const start = i;
    const kind = gif[i];
    if (kind === TRAILER) {
      if (!keep(i, i + 1)) return null;
      return { bytes: out.subarray(0, written), width, height };
    }
    if (kind === IMAGE) {
      // Descriptor (10 bytes), local colour table, LZW minimum code size, then the data sub-blocks.
      const afterTable = i + 10 + colourTableBytes(gif[i + 9] ?? 0);
      i = yield* skipSubBlocks(gif, afterTable + 1);
      if (i < 0 || !keep(start, i)) return null;
    } else if (kind === EXTENSION) {
      const label = gif[i + 1];
      i = yield* skipSubBlocks(gif, i + 2);
      if (i < 0) return null;
      const loop =
        label === APPLICATION &&
        LOOP_APPLICATIONS.has(gif.subarray(start + 3, start + 14).toString('latin1'));
      if ((label === GRAPHIC_CONTROL || loop) && !keep(start, i)) return null;
    } else {
      return null;
    }
  }
  return null;
}
