import type { LookupAddress } from 'node:dns';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaFetcher } from '../../src/content/media/index.js';
import { publicFetch } from '../../src/platform/net/public-url.js';
import { api } from '../helpers/start.js';
import { type MediaTestService, startMediaService } from './media-harness.js';

const assetDirs = (svc: MediaTestService) =>
  existsSync(join(svc.dataDir, 'media'))
    ? readdirSync(join(svc.dataDir, 'media')).filter((d) => d.startsWith('med_'))
    : [];

describe('from-url with the production fetcher', () => {
  let svc: MediaTestService;
  beforeAll(async () => {
    svc = await startMediaService();
    await svc.addBrand('brd_a');
  });
  afterAll(() => svc.close());

  it.each([
    'http://localhost/x.png',
    'http://127.0.0.1/x.png',
    'http://127.1/x.png',
    'http://10.0.0.5/x.png',
    'http://192.168.1.10/x.png',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/x.png',
    'http://[::ffff:127.0.0.1]/x.png',
    'http://2130706433/x.png',
    'http://metadata.google.internal/x',
    'file:///etc/passwd',
    'ftp://example.com/x.png',
  ])('refuses %s', async (url) => {
    const res = await api(svc.url, 'POST', '/v1/brands/brd_a/media/from-url', { body: { url } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('URL_NOT_ALLOWED');
    expect(res.body.error.param).toBe('url');
  });

  it('refuses a URL that is not a URL, and a brand that does not exist', async () => {
    const bad = await api(svc.url, 'POST', '/v1/brands/brd_a/media/from-url', { body: { url: 'not a url' } });
    expect(bad.status).toBe(400);
    const missing = await api(svc.url, 'POST', '/v1/brands/brd_nope/media/from-url', {
      body: { url: 'https://example.com/x.png' },
    });
    expect(missing.status).toBe(404);
    const strict = await api(svc.url, 'POST', '/v1/brands/brd_a/media/from-url', {
      body: { url: 'https://example.com/x.png', follow: true },
    });
    expect(strict.status).toBe(400);
  });
});

describe('from-url when DNS answers with a private address', () => {
  let svc: MediaTestService;
  // Fake DNS: every name resolves into private space, as a rebinding attacker's would.
  const lookup = ((hostname: string, _opts: unknown, cb: (e: null, a: LookupAddress[]) => void) => {
    cb(null, [
      { address: hostname.startsWith('v6') ? '::1' : '10.1.2.3', family: hostname.startsWith('v6') ? 6 : 4 },
    ]);
  }) as never;
  const fetcher: MediaFetcher = (url, init) => publicFetch(url, { ...init, allowPrivate: false, lookup });

  beforeAll(async () => {
    svc = await startMediaService({ mediaFetcher: fetcher });
    await svc.addBrand('brd_a');
  });
  afterAll(() => svc.close());

  it.each(['http://cdn.example.com/x.png', 'https://v6.example.com/x.png'])('refuses %s', async (url) => {
    const res = await api(svc.url, 'POST', '/v1/brands/brd_a/media/from-url', { body: { url } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('URL_NOT_ALLOWED');
    expect(res.body.error.message).toContain('private');
  });
});

describe('from-url against a local server (private addresses allowed for that server only)', () => {
  let svc: MediaTestService;
  let origin: MediaTestService;
  let server: Server;
  let base: string;
  let png: Buffer;

  beforeAll(async () => {
    png = await sharp({ create: { width: 1200, height: 1200, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer();
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/img.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(png);
      if (path === '/as-text') return res.writeHead(200, { 'content-type': 'text/plain' }).end(png);
      if (path === '/hop1') return res.writeHead(302, { location: '/hop2' }).end();
      if (path === '/hop2') return res.writeHead(301, { location: `${base}/hop3` }).end();
      if (path === '/hop3') return res.writeHead(307, { location: '/img.jpg' }).end();
      if (path === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (path === '/to-metadata')
        return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (path === '/to-localhost') {
        return res.writeHead(302, { location: `http://localhost:${new URL(base).port}/img.jpg` }).end();
      }
      if (path === '/no-location') return res.writeHead(302).end();
      if (path === '/html')
        return res.writeHead(200, { 'content-type': 'image/png' }).end('<html><script>x</script></html>');
      if (path === '/big-declared')
        return res
          .writeHead(200, { 'content-length': String(3 * 1024 * 1024) })
          .end(Buffer.concat([png, Buffer.alloc(3 * 1024 * 1024 - png.length)]));
      if (path === '/big-chunked') {
        // No Content-Length: the cap must hold while streaming.
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        res.write(png);
        const chunk = Buffer.alloc(256 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 40 && res.write(chunk)) sent++;
          if (sent >= 40) return res.end();
          res.once('drain', pump);
        };
        pump();
        return;
      }
      res.writeHead(404).end('missing');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // The test hook: private addresses are allowed for this one test server, and nothing else,
    // so redirects into other private space are still refused by the real guard.
    const fetcher: MediaFetcher = (url, init) =>
      publicFetch(url, { ...init, allowPrivate: new URL(url).origin === base });
    svc = await startMediaService({ mediaFetcher: fetcher, mediaLimits: { imageMaxBytes: 2 * 1024 * 1024 } });
    origin = svc;
    await svc.addBrand('brd_a');
  });
  afterAll(async () => {
    await svc.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const importUrl = (path: string, extra: Record<string, unknown> = {}) =>
    api(origin.url, 'POST', '/v1/brands/brd_a/media/from-url', { body: { url: `${base}${path}`, ...extra } });

  it('imports an image, with alt and tags', async () => {
    const res = await importUrl('/img.jpg', { alt: 'Blue square', tags: ['Imported'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'image',
      width: 1200,
      height: 1200,
      alt: 'Blue square',
      // Named by the URL's last segment, as an upload is by its file name.
      title: 'img.jpg',
      tags: ['imported'],
      source: 'url',
      source_url: `${base}/img.jpg`,
    });
    expect(res.body.variants.square).toMatchObject({ width: 1080, height: 1080 });
    expect((await fetch(`${svc.url}${res.body.variants.portrait.url}`)).status).toBe(200);
  });

  it('follows up to 3 redirects, checking each hop', async () => {
    const res = await importUrl('/hop1');
    expect(res.status).toBe(201);
    expect(res.body.source_url).toBe(`${base}/hop1`);
    expect(res.body.title).toBe('hop1');
  });

  it('stops after 3 redirects', async () => {
    const res = await importUrl('/loop');
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('FETCH_FAILED');
    expect(res.body.error.message).toContain('more than 3');
  });

  it.each(['/to-metadata', '/to-localhost'])('refuses a redirect into private space (%s)', async (path) => {
    const res = await importUrl(path);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('URL_NOT_ALLOWED');
    expect(res.body.error.message).toContain('redirected');
  });

  it('enforces the size cap, declared or streamed, and leaves nothing behind', async () => {
    const before = assetDirs(svc).length;
    for (const path of ['/big-declared', '/big-chunked']) {
      const res = await importUrl(path);
      expect(res.status, path).toBe(413);
      expect(res.body.error.code, path).toBe('MEDIA_TOO_LARGE');
    }
    expect(assetDirs(svc).length).toBe(before);
    expect(readdirSync(join(svc.dataDir, 'media', '.tmp'))).toEqual([]);
  });

  it('judges the bytes, not the Content-Type', async () => {
    expect((await importUrl('/as-text')).status).toBe(201);
    const html = await importUrl('/html');
    expect(html.status).toBe(415);
    expect(html.body.error.code).toBe('UNSUPPORTED_MEDIA');
  });

  it('reports upstream failures as FETCH_FAILED', async () => {
    for (const path of ['/missing', '/no-location']) {
      const res = await importUrl(path);
      expect(res.status, path).toBe(502);
      expect(res.body.error.code, path).toBe('FETCH_FAILED');
    }
  });
});
