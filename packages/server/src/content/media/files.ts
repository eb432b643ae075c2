import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { mediaTooLarge } from './errors.js';
import type { MediaLimits } from './limits.js';
import { SNIFF_BYTES, sniffVideo } from './sniff.js';

/**
 * On-disk layout under `<dataDir>/media` (or SERVICE_MEDIA_DIR, shared by every instance):
 *   <asset id>/            one directory per asset; only files named in its DB row are served
 *   .staging/<asset id>/   an asset being built; renamed into place when complete
 *   .tmp/<uuid>            an upload or download in flight
 * Leading dots keep the work areas apart from asset ids, which always start with `med_`.
 */
export const mediaRoot = (config: { dataDir: string; mediaDir?: string | undefined }) =>
  config.mediaDir ?? join(config.dataDir, 'media');

const ASSET_ID = /^med_[0-9A-Za-z]+$/;
/** Ids reach the file system, so they are checked even though we minted them. */
function checkedId(id: string): string {
  if (!ASSET_ID.test(id)) throw new Error(`Refusing a file path for asset id '${id}'.`);
  return id;
}
export const assetDir = (root: string, id: string) => join(root, checkedId(id));
export const stagingDir = (root: string, id: string) => join(root, '.staging', checkedId(id));

export async function newTempFile(root: string): Promise<string> {
  await mkdir(join(root, '.tmp'), { recursive: true });
  return join(root, '.tmp', randomUUID());
}

export const removeQuietly = (path: string) => rm(path, { recursive: true, force: true }).catch(() => {});

export async function moveIntoPlace(from: string, to: string): Promise<void> {
  await mkdir(join(to, '..'), { recursive: true });
  await rename(from, to);
}

/**
 * Removes the files of an asset directory that are not in `keep`, and the directory itself
 * when nothing is kept. Returns whether the directory is gone.
 */
export async function pruneAssetDir(root: string, id: string, keep: ReadonlySet<string>): Promise<boolean> {
  const dir = assetDir(root, id);
  if (keep.size === 0) {
    await removeQuietly(dir);
    return true;
  }
  const entries = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(entries.filter((f) => !keep.has(f)).map((f) => removeQuietly(join(dir, f))));
  return false;
}

/** The entries of `dir` last changed before `cutoffMs` (file system time); none if `dir` is missing. */
export async function entriesOlderThan(dir: string, cutoffMs: number): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const old = await Promise.all(
    names.map(async (n) => ((await stat(join(dir, n)).catch(() => null))?.mtimeMs ?? cutoffMs) < cutoffMs),
  );
  return names.filter((_, i) => old[i]);
}

/**
 * The orphan sweep's prune: removes the files of an asset directory that are not in `keep` and
 * were last changed before `cutoffMs` (a younger one may be another instance's re-render or
 * move-in in flight), then the directory if that left it empty. Returns whether it is gone.
 */
export async function pruneStaleFiles(
  root: string,
  id: string,
  keep: ReadonlySet<string>,
  cutoffMs: number,
): Promise<boolean> {
  const dir = assetDir(root, id);
  const stale = (await entriesOlderThan(dir, cutoffMs)).filter((f) => !keep.has(f));
  await Promise.all(stale.map((f) => removeQuietly(join(dir, f))));
  // rmdir refuses a directory that is not empty: a file moved in meanwhile keeps it.
  return rmdir(dir).then(
    () => true,
    () => false,
  );
}

/** Asset directories on disk, for the orphan sweep. */
export async function listAssetDirs(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory() && ASSET_ID.test(e.name)).map((e) => e.name);
}

/**
 * Streams chunks to `path` while enforcing the size cap. The cap depends on what the file
 * is, so the first bytes are sniffed before anything is written: video may be larger than
 * images. Throws MEDIA_TOO_LARGE as soon as the cap is passed; the caller removes the file.
 */
export async function writeCapped(
  chunks: AsyncIterable<Uint8Array>,
  path: string,
  limits: Pick<MediaLimits, 'imageMaxBytes' | 'videoMaxBytes'>,
): Promise<{ bytes: number }> {
  const out = createWriteStream(path, { flags: 'wx' });
  // The stream's errors are ours to handle: a failed write (a full disk), or a write still in
  // flight when an oversized upload is refused below and the stream destroyed, would otherwise
  // be an 'error' event with no listener, an uncaught exception that stops the whole server.
  let failed: Error | undefined;
  out.on('error', (err) => {
    failed ??= err;
  });
  let bytes = 0;
  let cap: number | null = null;
  let head = Buffer.alloc(0);
  const capFor = (h: Uint8Array) => (sniffVideo(h) ? limits.videoMaxBytes : limits.imageMaxBytes);
  try {
    for await (const chunk of chunks) {
      bytes += chunk.byteLength;
      if (cap === null) {
        head = Buffer.concat([head, chunk]);
        if (head.length >= SNIFF_BYTES) cap = capFor(head);
      }
      const limit = cap ?? limits.videoMaxBytes;
      if (bytes > limit) throw mediaTooLarge(limit, limit === limits.videoMaxBytes ? 'video' : 'image');
      // events.once rejects if the stream errors while we wait, so a failed write never hangs here.
      if (!out.write(chunk)) await once(out, 'drain');
      if (failed) throw failed;
    }
    if (cap === null && bytes > capFor(head)) throw mediaTooLarge(capFor(head), 'image');
    out.end();
    await finished(out);
    return { bytes };
  } catch (err) {
    out.destroy();
    // Closed before the caller removes the file; the stream's own error, if any, is already ours.
    await finished(out).catch(() => undefined);
    throw err;
  }
}
