import sharp from 'sharp';
import type { MediaTestService } from './media-harness.js';

/** GIFs made on the spot for the media and publish tests: animated, commented, and hostile. */

/** One frame of animatedGif, by default. */
export const GIF_W = 40;
export const GIF_H = 30;

/** An animated GIF of `frames` frames of w×h, each a different colour, 100 ms apart. */
export async function animatedGif(frames: number, w = GIF_W, h = GIF_H): Promise<Buffer> {
  const raw = Buffer.alloc(w * h * frames * 3);
  for (let i = 0; i < frames; i++)
    raw.fill(Buffer.from([(i * 50) % 256, 255 - ((i * 40) % 256), 0]), i * w * h * 3, (i + 1) * w * h * 3);
  return sharp(raw, { raw: { width: w, height: h * frames, channels: 3, pageHeight: h } })
    .gif({ delay: Array(frames).fill(100), loop: 0 })
    .toBuffer();
}

/**
 * An animated GIF of w×h gradients in two colours, as an optimiser would write it: sharp's
 * re-encode of it (a larger palette) comes out a few dozen bytes larger than the file.
 */
export async function twoColourGif(frames: number, w: number, h: number): Promise<Buffer> {
  const raw = Buffer.alloc(w * h * frames * 3);
  for (let f = 0; f < frames; f++)
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++)
        raw.set([Math.floor((x * 255) / w), Math.floor((y * 255) / h), f * 30], ((f * h + y) * w + x) * 3);
  return sharp(raw, { raw: { width: w, height: h * frames, channels: 3, pageHeight: h } })
    .gif({ colours: 2, dither: 0, delay: Array(frames).fill(100), loop: 0 })
    .toBuffer();
}

/** The GIF with a comment extension (where camera apps and editors leave text) after its colour table. */
export function withComment(gif: Buffer, text: string): Buffer {
  const flags = gif[10] ?? 0;
  const tableEnd = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  const body = Buffer.from(text, 'latin1');
  const comment = Buffer.concat([Buffer.from([0x21, 0xfe, body.length]), body, Buffer.from([0])]);
  return Buffer.concat([gif.subarray(0, tableEnd), comment, gif.subarray(tableEnd)]);
}

/**
 * A frame bomb: a few bytes per frame, `frames` frames of 1×1 on a 4000×4000 screen. Small on
 * the wire; decoding every frame of it is what must never start.
 */
export function frameBomb(frames: number): Buffer {
  const parts = [
    Buffer.from('GIF89a'),
    Buffer.from([0xa0, 0x0f, 0xa0, 0x0f, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]),
  ];
  for (let i = 0; i < frames; i++) {
    parts.push(Buffer.from([0x21, 0xf9, 4, 0, 10, 0, 0, 0]));
    parts.push(Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]));
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}

/** Uploads `bytes` as a GIF into brand brd_gif's library over HTTP: the status and the JSON body. */
export function uploadGif(svc: MediaTestService, bytes: Buffer, name = 'wave.gif') {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/gif' }), name);
  return fetch(`${svc.url}/v1/brands/brd_gif/media`, { method: 'POST', body: form }).then(async (res) => ({
    status: res.status,
    body: (await res.json()) as any,
  }));
}
