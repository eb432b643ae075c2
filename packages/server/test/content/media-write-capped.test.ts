import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { writeCapped } from '../../src/content/media/files.js';

const KB = 1024;
const dir = mkdtempSync(join(tmpdir(), 'svc-write-capped-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * An upload refused for its size while a write of its earlier bytes is still in flight: the
 * destroyed file stream then reports that write as an error. With nobody listening, that was an
 * uncaught exception, which in a server stops the process (seen on Node 24 in CI, from the
 * 20 MB upload test); every refusal must end as the refusal and nothing else.
 */
it('refuses an oversized upload mid-write without an error left for nobody', async () => {
  const uncaught: unknown[] = [];
  const record = (err: unknown) => uncaught.push(err);
  process.on('uncaughtException', record);
  try {
    // Small chunks, as a socket delivers them, and caps that fall at every point of the stream's
    // write-then-drain cycle, so that some refusals land while a write is on its way to the disk.
    for (let i = 0; i < 40; i++) {
      const path = join(dir, `upload-${i}`);
      async function* chunks() {
        for (;;) yield Buffer.alloc(KB * 4, i);
      }
      const cap = KB * (20 + i * 4);
      await expect(
        writeCapped(chunks(), path, { imageMaxBytes: cap, videoMaxBytes: cap }),
      ).rejects.toMatchObject({
        code: 'MEDIA_TOO_LARGE',
      });
    }
    // Whatever the destroyed streams still had to say has been said by now.
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    process.off('uncaughtException', record);
  }
  expect(uncaught).toEqual([]);
});
