import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/start.js';
import { type MediaTestService, startMediaService } from './media-harness.js';

/** 2000×1000: left half red, right half blue, so a crop's colour shows where it was taken. */
async function twoColourPng(): Promise<Buffer> {
  const blue = await sharp({ create: { width: 1000, height: 1000, channels: 3, background: '#0000ff' } })
    .png()
    .toBuffer();
  return sharp({ create: { width: 2000, height: 1000, channels: 3, background: '#ff0000' } })
    .composite([{ input: blue, left: 1000, top: 0 }])
    .png()
    .toBuffer();
}

const smallPng = (colour: string) =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: colour } })
    .png()
    .toBuffer();

/** A minimal MP4: ftyp, then moov with mvhd (5 s) and one tkhd (1080×1920), then mdat. */
function tinyMp4(): Buffer {
  const box = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + body.length, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, body]);
  };
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12);
  mvhd.writeUInt32BE(5000, 16);
  const tkhd = Buffer.alloc(84);
  tkhd.writeUInt32BE(1080 * 65536, 76);
  tkhd.writeUInt32BE(1920 * 65536, 80);
  return Buffer.concat([
    box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1')),
    box('moov', Buffer.concat([box('mvhd', mvhd), box('trak', box('tkhd', tkhd))])),
    box('mdat', Buffer.alloc(256, 7)),
  ]);
}

function upload(
  svc: MediaTestService,
  brandId: string,
  file: { bytes: Uint8Array; type: string; name?: string },
  fields: Record<string, string | string[]> = {},
  headers: Record<string, string> = {},
) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name ?? 'upload.bin');
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
  return fetch(`${svc.url}/v1/brands/${brandId}/media`, { method: 'POST', body: form, headers }).then(
    async (res) => ({ status: res.status, body: (await res.json()) as any }),
  );
}

/** Raw GET so the path reaches the server exactly as written (fetch would normalise `..`). */
function rawGet(base: string, path: string): Promise<{ status: number; headers: Record<string, unknown> }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const assetDirs = (svc: MediaTestService) =>
  existsSync(join(svc.dataDir, 'media'))
    ? readdirSync(join(svc.dataDir, 'media')).filter((d) => d.startsWith('med_'))
    : [];

/** The colour at a horizontal fraction of the image, half-way down. */
async function pixel(url: string, fx = 0.5): Promise<[number, number, number]> {
  const buf = Buffer.from(await (await fetch(url)).arrayBuffer());
  const { data, info } = await sharp(buf).raw().toBuffer({ resolveWithObject: true });
  const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width * fx)) * info.channels;
  return [data[at] ?? 0, data[at + 1] ?? 0, data[at + 2] ?? 0];
}

describe('media upload, crops and serving', () => {
  let svc: MediaTestService;
  let png: Buffer;
  let asset: any;
  /**
   * The refused upload's partial file is removed once its stream has closed, which on a loaded
   * machine can come after the answer: waited for, not a fixed pause that may be too short.
   */
  const tmpIsEmpty = () =>
    expect.poll(() => readdirSync(join(svc.dataDir, 'media', '.tmp')), { timeout: 10_000 }).toEqual([]);

  beforeAll(async () => {
    svc = await startMediaService();
    await svc.addBrand('brd_main');
    await svc.addBrand('brd_other');
    png = await twoColourPng();
  });
  afterAll(() => svc.close());

  it('uploads a PNG and makes every crop at the right size', async () => {
    const res = await upload(
      svc,
      'brd_main',
      { bytes: png, type: 'image/png', name: 'hero.png' },
      {
        alt: 'Red and blue',
        tags: ['Launch', 'hero,launch'],
      },
    );
    expect(res.status).toBe(201);
    asset = res.body;
    expect(asset).toMatchObject({
      brand_id: 'brd_main',
      kind: 'image',
      mime: 'image/jpeg',
      width: 2000,
      height: 1000,
      alt: 'Red and blue',
      title: 'hero.png',
      tags: ['launch', 'hero'],
      focal_point: { x: 0.5, y: 0.5 },
      source: 'upload',
    });
    const dims = Object.fromEntries(
      Object.entries(asset.variants).map(([k, v]: [string, any]) => [k, [v.width, v.height]]),
    );
    // Never upscaled: the 1000 px high source gives a 1000 px square, not 1080.
    expect(dims).toEqual({
      original: [2000, 1000],
      square: [1000, 1000],
      portrait: [800, 1000],
      landscape: [1200, 628],
      wide: [1280, 720],
    });
    for (const [name, v] of Object.entries(asset.variants) as [string, any][]) {
      const file = await fetch(`${svc.url}${v.url}`);
      expect(file.status, name).toBe(200);
      const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
      expect([meta.width, meta.height, meta.format], name).toEqual([v.width, v.height, 'jpeg']);
    }
  });

  it('titles an asset with the file name it was uploaded as, without its folders', async () => {
    const named = async (name: string) =>
      (await upload(svc, 'brd_main', { bytes: await smallPng('#336699'), type: 'image/png', name })).body;
    const a = await named('C:\\Users\\me\\Launch day.png');
    expect(a.title).toBe('Launch day.png');
    expect((await api(svc.url, 'GET', `/v1/media/${a.id}`)).body.title).toBe('Launch day.png');
    expect((await named('shots/team photo.png')).title).toBe('team photo.png');
    // What clients send when they have no name is no title: the app falls back to the alt text.
    expect((await named('upload')).title).toBe('');
  });

  it('serves files with safe headers, and only files the database names', async () => {
    const res = await fetch(`${svc.url}${asset.variants.square.url}`);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(res.headers.get('cache-control')).toContain('immutable');
    for (const path of [
      '/media/',
      `/media/${asset.id}`,
      `/media/${asset.id}/`,
      `/media/${asset.id}/..%2F..%2Fcontent.sqlite`,
      '/media/..%2Fcontent.sqlite/x',
      `/media/${asset.id}/../../content.sqlite`,
      `/media/${asset.id}/source.png`,
      '/media/med_nope/original.jpg',
    ]) {
      const got = await rawGet(svc.url, path);
      expect(got.status, path).toBe(404);
      expect(got.headers['content-security-policy'], path).toBe("default-src 'none'; sandbox");
    }
  });

  it('serves files from a data folder under a dot-folder, and still nothing but the files the row names', async () => {
    // The README's default data folder is ./.data; the harness mirrors it, so this is the user's case.
    expect(svc.dataDir.split(/[\\/]/)).toContain('.data');
    const res = await fetch(`${svc.url}${asset.variants.square.url}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');

    // Files that exist on disk but that no row names: a dotfile inside the asset's own directory,
    // and the work areas beside the asset directories.
    const dir = join(svc.dataDir, 'media', asset.id);
    writeFileSync(join(dir, '.secret'), 'nope');
    mkdirSync(join(svc.dataDir, 'media', '.staging', 'med_x'), { recursive: true });
    writeFileSync(join(svc.dataDir, 'media', '.staging', 'med_x', 'original.jpg'), 'nope');
    for (const path of [
      `/media/${asset.id}/.secret`,
      `/media/${asset.id}/%2esecret`,
      `/media/${asset.id}/%2Esecret`,
      `/media/${asset.id}/%2e%2e%2f%2e%2e%2fcontent.sqlite`,
      `/media/${asset.id}/%2E%2E%2F%2E%2E%2Fcontent.sqlite`,
      `/media/${asset.id}/..%5c..%5ccontent.sqlite`,
      `/media/${asset.id}/%252e%252e%252fcontent.sqlite`,
      `/media/${asset.id}/..`,
      `/media/${asset.id}/%2e%2e`,
      '/media/.staging/med_x',
      '/media/%2estaging/med_x/original.jpg',
      '/media/med_x/original.jpg',
      `/media/${asset.id}%2f..%2f..%2fcontent.sqlite/original.jpg`,
    ]) {
      const got = await rawGet(svc.url, path);
      expect(got.status, path).toBe(404);
      expect(got.headers['content-security-policy'], path).toBe("default-src 'none'; sandbox");
    }
  });

  it('is read-only', async () => {
    const res = await fetch(`${svc.url}${asset.variants.square.url}`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(((await res.json()) as any).error.code).toBe('METHOD_NOT_ALLOWED');
    expect((await fetch(`${svc.url}${asset.variants.square.url}`, { method: 'HEAD' })).status).toBe(200);
  });

  it('stays reachable through the local-only gate', async () => {
    const { hostname, port } = new URL(svc.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          path: asset.variants.original.url,
          headers: { host: 'tunnel.example.com', 'x-forwarded-for': '203.0.113.9' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

  it('re-renders the crops around a new focal point, at new URLs', async () => {
    // Centred by default: the square straddles the red/blue border.
    expect((await pixel(`${svc.url}${asset.variants.square.url}`, 0.25))[0]).toBeGreaterThan(200);
    expect((await pixel(`${svc.url}${asset.variants.square.url}`, 0.75))[2]).toBeGreaterThan(200);
    const left = await api(svc.url, 'PATCH', `/v1/media/${asset.id}`, {
      body: { focal_point: { x: 0, y: 0.5 } },
    });
    expect(left.status).toBe(200);
    expect(left.body.focal_point).toEqual({ x: 0, y: 0.5 });
    expect(left.body.variants.square.url).not.toBe(asset.variants.square.url);
    expect(left.body.variants.original.url).toBe(asset.variants.original.url);
    const [r1, , b1] = await pixel(`${svc.url}${left.body.variants.square.url}`);
    expect(r1).toBeGreaterThan(200);
    expect(b1).toBeLessThan(60);
    // The previous render is gone.
    expect((await fetch(`${svc.url}${asset.variants.square.url}`)).status).toBe(404);

    const right = await api(svc.url, 'PATCH', `/v1/media/${asset.id}`, {
      body: { focal_point: { x: 1, y: 0.5 } },
    });
    const [r2, , b2] = await pixel(`${svc.url}${right.body.variants.square.url}`);
    expect(b2).toBeGreaterThan(200);
    expect(r2).toBeLessThan(60);
    asset = right.body;
  });

  it('patches alt text and tags, strictly', async () => {
    const res = await api(svc.url, 'PATCH', `/v1/media/${asset.id}`, {
      body: { alt: 'New alt', tags: ['b', 'a'] },
    });
    expect(res.body).toMatchObject({ alt: 'New alt', tags: ['b', 'a'] });
    const bad = await api(svc.url, 'PATCH', `/v1/media/${asset.id}`, {
      body: { focal_point: { x: 2, y: 0 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
    const unknown = await api(svc.url, 'PATCH', `/v1/media/${asset.id}`, { body: { caption: 'x' } });
    expect(unknown.status).toBe(400);
    expect((await api(svc.url, 'PATCH', '/v1/media/med_missing', { body: { alt: 'x' } })).status).toBe(404);
  });

  it('explains how the asset fits each platform', async () => {
    const res = await api(svc.url, 'GET', `/v1/media/${asset.id}/fit`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ asset_id: asset.id, kind: 'image', aspect_ratio: 2 });
    const byPlatform = Object.fromEntries(res.body.platforms.map((p: any) => [p.platform, p]));
    expect(byPlatform.instagram).toMatchObject({
      preferred_variant: 'portrait',
      original_ratio_fits: false,
      ok: true,
    });
    expect(byPlatform.instagram.warnings.join(' ')).toContain('portrait crop is used');
    expect(byPlatform.x).toMatchObject({ preferred_variant: 'wide', original_ratio_fits: true });
    expect(byPlatform.linkedin.preferred_variant).toBe('landscape');
    expect(byPlatform.threads.preferred_url).toBe(asset.variants.portrait.url);
  });

  it('stores video as is, serves it with ranges, and says why there are no crops', async () => {
    const mp4 = tinyMp4();
    const res = await upload(svc, 'brd_main', { bytes: mp4, type: 'application/octet-stream' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'video',
      mime: 'video/mp4',
      width: 1080,
      height: 1920,
      duration_ms: 5000,
    });
    expect(Object.keys(res.body.variants)).toEqual(['original']);
    const file = await fetch(`${svc.url}${res.body.variants.original.url}`, {
      headers: { range: 'bytes=0-7' },
    });
    expect(file.status).toBe(206);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(mp4.subarray(0, 8));
    const fit = await api(svc.url, 'GET', `/v1/media/${res.body.id}/fit`);
    const ig = fit.body.platforms.find((p: any) => p.platform === 'instagram');
    expect(ig).toMatchObject({ preferred_variant: 'original', ok: false });
    expect(ig.warnings.join(' ')).toContain('no crops');
    const focal = await api(svc.url, 'PATCH', `/v1/media/${res.body.id}`, {
      body: { focal_point: { x: 0.2, y: 0.2 } },
    });
    expect(focal.status).toBe(400);
    await api(svc.url, 'DELETE', `/v1/media/${res.body.id}`);
  });

  it('refuses bytes that are not an image even when the client says image/png', async () => {
    const before = assetDirs(svc).length;
    const res = await upload(svc, 'brd_main', {
      bytes: Buffer.from('<svg onload=alert(1)>not a png</svg>'),
      type: 'image/png',
      name: 'x.png',
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA');
    expect(assetDirs(svc).length).toBe(before);
  });

  it('refuses a truncated image whose header looks fine', async () => {
    const res = await upload(svc, 'brd_main', { bytes: png.subarray(0, 3000), type: 'image/png' });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA');
  });

  it('refuses SVG even though sharp could read it', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
    );
    const res = await upload(svc, 'brd_main', { bytes: svg, type: 'image/svg+xml' });
    expect(res.status).toBe(415);
  });

  it('refuses an image over 20 MB while streaming, leaving nothing behind', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024 + 1024, 0);
    png.copy(big, 0, 0, 64);
    const before = assetDirs(svc).length;
    const res = await upload(svc, 'brd_main', { bytes: big, type: 'image/png' });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('MEDIA_TOO_LARGE');
    expect(assetDirs(svc).length).toBe(before);
    await tmpIsEmpty();
  });

  it('refuses a cross-origin multipart POST (CSRF) and accepts a same-origin one', async () => {
    const small = await smallPng('#00ff00');
    const before = assetDirs(svc).length;
    const cross = await upload(
      svc,
      'brd_main',
      { bytes: small, type: 'image/png' },
      {},
      { origin: 'https://evil.example' },
    );
    expect(cross.status).toBe(403);
    expect(cross.body.error.code).toBe('CROSS_ORIGIN_REQUEST');
    expect(assetDirs(svc).length).toBe(before);
    const same = await upload(svc, 'brd_main', { bytes: small, type: 'image/png' }, {}, { origin: svc.url });
    expect(same.status).toBe(201);
    await api(svc.url, 'DELETE', `/v1/media/${same.body.id}`);
  });

  it('rejects malformed uploads with the documented errors', async () => {
    const json = await api(svc.url, 'POST', '/v1/brands/brd_main/media', { body: { file: 'x' } });
    expect(json.status).toBe(415);
    const form = new FormData();
    form.append('alt', 'no file');
    const noFile = await fetch(`${svc.url}/v1/brands/brd_main/media`, { method: 'POST', body: form });
    expect(noFile.status).toBe(400);
    expect(((await noFile.json()) as any).error.message).toContain("'file'");
    const small = await smallPng('#123456');
    const extra = await upload(svc, 'brd_main', { bytes: small, type: 'image/png' }, { caption: 'x' });
    expect(extra.status).toBe(400);
    const noBrand = await upload(svc, 'brd_nope', { bytes: small, type: 'image/png' });
    expect(noBrand.status).toBe(404);
  });

  it('survives a client that disconnects mid-upload, and a truncated body', async () => {
    const { port } = new URL(svc.url);
    const sock = connect(Number(port), '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write(
      `POST /v1/brands/brd_main/media HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: multipart/form-data; boundary=zz\r\nContent-Length: 10000000\r\n\r\n--zz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`,
    );
    sock.write(Buffer.alloc(200_000, 1));
    await new Promise((r) => setTimeout(r, 50));
    sock.destroy();
    const truncated = await fetch(`${svc.url}/v1/brands/brd_main/media`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=zz' },
      body: '--zz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc',
    });
    expect(truncated.status).toBe(400);
    await tmpIsEmpty();
    expect((await api(svc.url, 'GET', '/v1/brands/brd_main/media')).status).toBe(200);
  });

  it('lists newest first with a tag filter and cursor pagination', async () => {
    const ids: string[] = [];
    for (const [i, tags] of [['launch'], [], ['launch', 'q3'], ['q3']].entries()) {
      svc.clock.advance(60_000);
      const res = await upload(
        svc,
        'brd_other',
        { bytes: await smallPng(`#0000${i}${i}`), type: 'image/png' },
        { tags },
      );
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const newest = [...ids].reverse();
    const p1 = await api(svc.url, 'GET', '/v1/brands/brd_other/media?limit=3');
    expect(p1.body.media.map((m: any) => m.id)).toEqual(newest.slice(0, 3));
    expect(p1.body).toMatchObject({ has_more: true, next_after: newest[2] });
    const p2 = await api(svc.url, 'GET', `/v1/brands/brd_other/media?limit=3&after=${p1.body.next_after}`);
    expect(p2.body).toMatchObject({ has_more: false, next_after: null });
    expect(p2.body.media.map((m: any) => m.id)).toEqual(newest.slice(3));

    const tagged = await api(svc.url, 'GET', '/v1/brands/brd_other/media?tag=Launch');
    expect(tagged.body.media.map((m: any) => m.id)).toEqual([ids[2], ids[0]]);
    const t1 = await api(svc.url, 'GET', '/v1/brands/brd_other/media?tag=q3&limit=1');
    expect(t1.body).toMatchObject({ has_more: true, next_after: ids[3] });
    const t2 = await api(svc.url, 'GET', `/v1/brands/brd_other/media?tag=q3&limit=1&after=${ids[3]}`);
    expect(t2.body.media.map((m: any) => m.id)).toEqual([ids[2]]);
    expect(t2.body.has_more).toBe(false);

    expect((await api(svc.url, 'GET', '/v1/brands/brd_other/media?after=med_nope')).status).toBe(400);
    expect((await api(svc.url, 'GET', '/v1/brands/brd_other/media?limit=0')).status).toBe(400);
    expect((await api(svc.url, 'GET', '/v1/brands/brd_nope/media')).status).toBe(404);
    // Another brand's asset is not reachable through this brand's list or cursor.
    expect((await api(svc.url, 'GET', `/v1/brands/brd_other/media?after=${asset.id}`)).status).toBe(400);
  });

  it('deletes an asset, its row and its files', async () => {
    const dir = join(svc.dataDir, 'media', asset.id);
    expect(existsSync(dir)).toBe(true);
    const res = await api(svc.url, 'DELETE', `/v1/media/${asset.id}`);
    expect(res.body).toEqual({ id: asset.id, deleted: true });
    expect(existsSync(dir)).toBe(false);
    expect((await api(svc.url, 'GET', `/v1/media/${asset.id}`)).status).toBe(404);
    expect((await fetch(`${svc.url}${asset.variants.original.url}`)).status).toBe(404);
    expect((await api(svc.url, 'DELETE', `/v1/media/${asset.id}`)).status).toBe(404);
  });
});
