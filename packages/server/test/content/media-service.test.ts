import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import {
  type MediaContext,
  type MediaService,
  mediaRoutes,
  mediaService,
} from '../../src/content/media/index.js';
import { ORPHAN_MIN_AGE_MS } from '../../src/content/media/service.js';
import { mediaStore } from '../../src/content/media/store.js';
import { UploadedFile } from '../../src/content/media/upload.js';
import { contentRegistry } from '../../src/content/schemas.js';
import { AppError } from '../../src/platform/errors.js';
import { buildOpenApi } from '../../src/platform/http/index.js';
import { type MediaTestService, startMediaService } from './media-harness.js';

/** The service API drafts (attach_media) and the MCP list_media tool call, without HTTP. */
describe('MediaService for drafts and MCP', () => {
  let svc: MediaTestService;
  let media: MediaService;
  let imageId: string;

  const fileOf = async (width: number, height: number) => {
    const path = join(svc.dataDir, 'in.png');
    mkdirSync(svc.dataDir, { recursive: true });
    await sharp({ create: { width, height, channels: 3, background: '#808080' } })
      .png()
      .toFile(path);
    const { size } = await import('node:fs').then((fs) => fs.statSync(path));
    return new UploadedFile(path, size, 'in.png');
  };

  beforeAll(async () => {
    svc = await startMediaService({
      config: { content: { port: 0, publicUrl: 'https://svc.example.com/' } },
    });
    await svc.addBrand('brd_a');
    await svc.addBrand('brd_b');
    media = mediaService(svc.ctx);
    imageId = (await media.upload('brd_a', await fileOf(300, 200), { tags: ['x'] })).id;
  });
  afterAll(() => svc.close());

  it('is the media service the content context holds, and takes the ContentContext as is', () => {
    const port: ContentContext['media'] = media;
    const fromContent = (ctx: ContentContext): MediaContext => ctx;
    expect(typeof port.getAsset).toBe('function');
    expect(typeof fromContent).toBe('function');
  });

  it('gets an asset by id, scoped to a brand when one is given', async () => {
    expect((await media.getAsset(null, imageId)).brand_id).toBe('brd_a');
    expect((await media.getAsset('brd_a', imageId)).id).toBe(imageId);
    await expect(media.getAsset('brd_b', imageId)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(media.getAsset(null, 'med_missing')).rejects.toBeInstanceOf(AppError);
  });

  it('names preferred crops and builds absolute URLs from CONTENT_PUBLIC_URL', async () => {
    const asset = await media.getAsset(null, imageId);
    expect(media.defaultVariant(asset, 'instagram')).toBe('portrait');
    expect(media.defaultVariant(asset, 'x')).toBe('wide');
    expect(media.defaultVariant({ kind: 'image', mime: 'image/gif' }, 'x')).toBe('original');
    expect(media.variantUrl(asset, 'square')).toMatch(
      new RegExp(`^https://svc\\.example\\.com/media/${imageId}/square\\.1\\.jpg$`),
    );
    expect(media.variantUrl(asset, 'poster')).toBeNull();
    expect(media.pickVariant(asset, 'linkedin')).toMatchObject({ variant: 'landscape' });
    expect(() =>
      media.pickVariant({ ...asset, variants: { original: asset.variants.original } } as never, 'x'),
    ).toThrow(/no 'wide' variant/);
  });

  it('lists like list_media: newest first, optional tag', async () => {
    const page = await media.listAssets('brd_a', { tag: 'X' });
    expect(page.assets.map((a) => a.id)).toEqual([imageId]);
    expect(await media.listAssets('brd_b')).toEqual({ assets: [], has_more: false, next_after: null });
  });

  it('sweeps only what nothing refers to and nothing changed for a day (another instance may be mid-upload)', async () => {
    const root = join(svc.dataDir, 'media');
    const aged = (path: string) => {
      const t = new Date(Date.now() - ORPHAN_MIN_AGE_MS - 60_000);
      utimesSync(path, t, t);
    };
    const other = await media.upload('brd_b', await fileOf(50, 50), {});
    await svc.db.run('DELETE FROM brands WHERE id = ?', ['brd_b']);
    // Leftovers of a crash, and work in flight on another instance sharing the folder.
    mkdirSync(join(root, '.staging', 'med_oldbuild'), { recursive: true });
    mkdirSync(join(root, '.staging', 'med_newbuild'), { recursive: true });
    mkdirSync(join(root, '.tmp'), { recursive: true });
    writeFileSync(join(root, '.tmp', 'old-upload'), 'x');
    writeFileSync(join(root, '.tmp', 'new-upload'), 'x');
    writeFileSync(join(root, imageId, 'stray.jpg'), 'x');
    aged(join(root, '.staging', 'med_oldbuild'));
    aged(join(root, '.tmp', 'old-upload'));

    // The deleted brand's files are fresh: they could be a move-in whose row is not written yet.
    expect(await media.sweepOrphans()).toBe(0);
    expect(readdirSync(root)).toContain(other.id);
    expect(readdirSync(join(root, '.staging'))).toEqual(['med_newbuild']);
    expect(readdirSync(join(root, '.tmp'))).toEqual(['new-upload']);
    expect(readdirSync(join(root, imageId))).toContain('stray.jpg');

    for (const f of readdirSync(join(root, other.id))) aged(join(root, other.id, f));
    for (const f of readdirSync(join(root, imageId))) aged(join(root, imageId, f));
    expect(await media.sweepOrphans()).toBe(1);
    expect(readdirSync(root).filter((d) => d.startsWith('med_'))).toEqual([imageId]);
    // The asset still has every file its row lists, and only those.
    const asset = await media.getAsset(null, imageId);
    const listed = Object.values(asset.variants).map((v: any) => v.url.split('/').pop());
    expect(readdirSync(join(root, imageId)).sort()).toEqual([...new Set(listed)].sort());
  });

  it('tells which of more asset directories than one statement may bind have a row', async () => {
    // Past 32,766 on SQLite and 65,535 on PostgreSQL, one `?` per directory was refused outright.
    const dirs = Array.from({ length: 70_000 }, (_, i) => `med_gone${i}`);
    dirs.splice(41_234, 0, imageId);
    expect(await mediaStore(svc.db).existingIds(dirs)).toEqual(new Set([imageId]));
    expect(await mediaStore(svc.db).existingIds([])).toEqual(new Set());
  });

  it('documents the upload as multipart with a binary file part', () => {
    const doc = buildOpenApi(mediaRoutes(svc.ctx), {
      title: 't',
      version: '0',
      registry: contentRegistry,
      securitySchemes: {},
      security: {},
    }) as any;
    const body = doc.paths['/v1/brands/{id}/media'].post.requestBody.content['multipart/form-data'].schema;
    expect(body.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/v1/brands/{id}/media',
      '/v1/brands/{id}/media/from-url',
      '/v1/media/{id}',
      '/v1/media/{id}/fit',
    ]);
    expect(doc.components.schemas.MediaAsset).toBeDefined();
  });
});
