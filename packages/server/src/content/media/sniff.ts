import { open } from 'node:fs/promises';

/** Bytes needed to recognise a video container. */
export const SNIFF_BYTES = 64;

export interface VideoType {
  mime: 'video/mp4' | 'video/quicktime' | 'video/webm';
  ext: 'mp4' | 'mov' | 'webm';
}

/** ISO-BMFF brands that are still images (HEIF/AVIF); those go to sharp, not the video path. */
const IMAGE_BRANDS = new Set(['avif', 'avis', 'heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1']);

/**
 * Recognises MP4, QuickTime and WebM by their first bytes. The client's Content-Type is never
 * consulted: it is whatever the client says, and we serve files with the type we detect.
 */
export function sniffVideo(head: Uint8Array): VideoType | null {
  const ascii = (from: number, to: number) => Buffer.from(head.subarray(from, to)).toString('latin1');
  if (head.length >= 12 && ascii(4, 8) === 'ftyp') {
    const brand = ascii(8, 12);
    if (IMAGE_BRANDS.has(brand)) return null;
    return brand === 'qt  ' ? { mime: 'video/quicktime', ext: 'mov' } : { mime: 'video/mp4', ext: 'mp4' };
  }
  // EBML header; WebM names its doctype in the header. Other Matroska files are not accepted.
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) {
    return ascii(4, head.length).includes('webm') ? { mime: 'video/webm', ext: 'webm' } : null;
  }
  return null;
}

export interface VideoProbe {
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

const NOTHING: VideoProbe = { width: null, height: null, durationMs: null };
/** A moov box larger than this is not read; the asset is still accepted, just not measured. */
const MAX_MOOV_BYTES = 16 * 1024 * 1024;

/**
 * Reads duration and frame size from an MP4/QuickTime `moov` box (mvhd + the first visual
 * tkhd), enough for `fit` to check duration and aspect ratio without ffprobe. WebM is not
 * measured. Any surprise in the structure gives nulls, never an error.
 */
export async function probeIsoVideo(path: string): Promise<VideoProbe> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    let offset = 0;
    const header = Buffer.alloc(16);
    while (offset + 8 <= size) {
      await fh.read(header, 0, 16, offset);
      let boxSize = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      let headerLen = 8;
      if (boxSize === 1) {
        boxSize = Number(header.readBigUInt64BE(8));
        headerLen = 16;
      } else if (boxSize === 0) boxSize = size - offset;
      if (boxSize < headerLen) return NOTHING;
      if (type === 'moov') {
        if (boxSize > MAX_MOOV_BYTES) return NOTHING;
        const moov = Buffer.alloc(boxSize - headerLen);
        await fh.read(moov, 0, moov.length, offset + headerLen);
        return parseMoov(moov);
      }
      offset += boxSize;
    }
    return NOTHING;
  } catch {
    return NOTHING;
  } finally {
    await fh.close();
  }
}

function* boxes(buf: Buffer): Generator<{ type: string; body: Buffer }> {
  let at = 0;
  while (at + 8 <= buf.length) {
    const size = buf.readUInt32BE(at);
    if (size < 8 || at + size > buf.length) return;
    yield { type: buf.toString('latin1', at + 4, at + 8), body: buf.subarray(at + 8, at + size) };
    at += size;
  }
}

function parseMoov(moov: Buffer): VideoProbe {
  const out: VideoProbe = { ...NOTHING };
  for (const box of boxes(moov)) {
    if (box.type === 'mvhd' && box.body.length >= 32) {
      const v1 = box.body[0] === 1;
      const timescale = box.body.readUInt32BE(v1 ? 20 : 12);
      const duration = v1 ? Number(box.body.readBigUInt64BE(24)) : box.body.readUInt32BE(16);
      if (timescale > 0) out.durationMs = Math.round((duration / timescale) * 1000);
    }
    if (box.type === 'trak' && out.width === null) {
      for (const inner of boxes(box.body)) {
        if (inner.type !== 'tkhd' || inner.body.length < 84) continue;
        // Width and height are the last two 16.16 fixed-point fields of tkhd.
        const w = inner.body.readUInt32BE(inner.body.length - 8) / 65536;
        const h = inner.body.readUInt32BE(inner.body.length - 4) / 65536;
        if (w > 0 && h > 0) {
          out.width = Math.round(w);
          out.height = Math.round(h);
        }
      }
    }
  }
  return out;
}
