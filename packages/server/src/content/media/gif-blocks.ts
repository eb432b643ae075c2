/**
 * An animated GIF's own bytes, with the blocks that carry text dropped: comment and plain-text
 * extensions, and every application extension but the loop count (NETSCAPE2.0 / ANIMEXTS1.0).
 * That is what the re-encode drops too (XMP packets and editors' notes live there), so an original
 * kept as uploaded, when the re-encode would be larger, carries no more than the re-encode would.
 * Frames, palettes and delays are copied byte for byte.
 *
 * One pass over the file, a sub-block (at most 255 bytes) a step: a 20 MB upload is about 80,000
 * steps. Anything that is not a well-formed GIF gives null, and the caller keeps the re-encode.
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
function skipSubBlocks(gif: Buffer, at: number): number {
  let i = at;
  while (i < gif.length) {
    const size = gif[i] ?? 0;
    if (size === 0) return i + 1;
    i += size + 1;
  }
  return -1;
}

const colourTableBytes = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);

export function gifWithoutText(gif: Buffer): GifBytes | null {
  const magic = gif.subarray(0, 6).toString('latin1');
  if ((magic !== 'GIF89a' && magic !== 'GIF87a') || gif.length < 13) return null;
  const width = gif.readUInt16LE(6);
  const height = gif.readUInt16LE(8);
  const kept: Buffer[] = [];
  let i = 13 + colourTableBytes(gif[10] ?? 0);
  kept.push(gif.subarray(0, i));
  while (i < gif.length) {
    const start = i;
    const kind = gif[i];
    if (kind === TRAILER) {
      kept.push(gif.subarray(i, i + 1));
      return { bytes: Buffer.concat(kept), width, height };
    }
    if (kind === IMAGE) {
      // Descriptor (10 bytes), local colour table, LZW minimum code size, then the data sub-blocks.
      const afterTable = i + 10 + colourTableBytes(gif[i + 9] ?? 0);
      i = skipSubBlocks(gif, afterTable + 1);
      if (i < 0) return null;
      kept.push(gif.subarray(start, i));
    } else if (kind === EXTENSION) {
      const label = gif[i + 1];
      i = skipSubBlocks(gif, i + 2);
      if (i < 0) return null;
      const loop =
        label === APPLICATION &&
        LOOP_APPLICATIONS.has(gif.subarray(start + 3, start + 14).toString('latin1'));
      if (label === GRAPHIC_CONTROL || loop) kept.push(gif.subarray(start, i));
    } else {
      return null;
    }
  }
  return null;
}
