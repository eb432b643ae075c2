import type { lookup as dnsLookup } from 'node:dns';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchProductPage, readProductPage } from '../../src/commerce/merchants/product-page/index.js';

const tote = readFileSync(
  new URL('../fixtures/product-pages/json-ld-variants.html', import.meta.url),
  'utf8',
);

/** A local store: a product page, redirects, an endless page, a huge page, a 404, a hang. */
function startStore(): Promise<Server> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    if (path === '/products/canvas-tote') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(tote);
    } else if (path === '/old/canvas-tote') {
      res.writeHead(301, { location: '/products/canvas-tote?variant=40002' });
      res.end();
    } else if (path === '/loop') {
      res.writeHead(302, { location: '/loop' });
      res.end();
    } else if (path === '/huge-streamed') {
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = `<p>${'x'.repeat(16 * 1024)}</p>`;
      for (let i = 0; i < 64; i++) res.write(chunk);
      res.end();
    } else if (path === '/huge-declared') {
      const body = 'y'.repeat(200 * 1024);
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(body.length) });
      res.end(body);
    } else if (path === '/hang') {
      // Never answers; the fetch's deadline must end it.
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('fetchProductPage', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = await startStore();
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const local = { allowPrivate: true, timeoutMs: 5_000, maxBytes: 64 * 1024 };

  it('fetches a local page with allowPrivate, and the reader reads it', async () => {
    const page = await fetchProductPage(`${base}/products/canvas-tote`, local);
    expect(page).toMatchObject({
      ok: true,
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: tote,
    });
    if (!page.ok) return;
    expect(readProductPage(page.body, page.url)).toMatchObject({
      ok: true,
      offer: { item_ref: '40001', price: { amount: 2500, currency: 'USD' }, availability: 'in_stock' },
    });
  });

  it('follows a redirect and reports the final URL (which selects the variant)', async () => {
    const page = await fetchProductPage(`${base}/old/canvas-tote`, local);
    expect(page).toMatchObject({ ok: true, url: `${base}/products/canvas-tote?variant=40002` });
    if (!page.ok) return;
    expect(readProductPage(page.body, page.url)).toMatchObject({
      ok: true,
      offer: { item_ref: '40002', price: { amount: 2850, currency: 'USD' }, availability: 'out_of_stock' },
    });
  });

  it('stops after maxRedirects', async () => {
    expect(await fetchProductPage(`${base}/loop`, { ...local, maxRedirects: 2 })).toMatchObject({
      ok: false,
      reason: 'TOO_MANY_REDIRECTS',
    });
  });

  it('refuses loopback, private and plain http URLs without allowPrivate', async () => {
    for (const url of [
      `${base}/products/canvas-tote`,
      'https://127.0.0.1/p',
      'https://10.0.0.8/p',
      'http://shop.example.com/p',
    ]) {
      expect(await fetchProductPage(url, { ...local, allowPrivate: false })).toMatchObject({
        ok: false,
        reason: 'URL_NOT_ALLOWED',
      });
    }
  });

  it('refuses a public name that resolves to a private address (checked at connect time)', async () => {
    const lookup = ((
      _host: string,
      _opts: unknown,
      cb: (e: null, a: { address: string; family: number }[]) => void,
    ) => cb(null, [{ address: '127.0.0.1', family: 4 }])) as unknown as typeof dnsLookup;
    const result = await fetchProductPage('https://shop.example.com/products/canvas-tote', {
      ...local,
      allowPrivate: false,
      lookup,
    });
    expect(result).toMatchObject({ ok: false, reason: 'URL_NOT_ALLOWED' });
    if (!result.ok) expect(result.message).toContain('shop.example.com');
  });

  it('enforces the size cap on streamed and declared bodies', async () => {
    for (const path of ['/huge-streamed', '/huge-declared']) {
      expect(await fetchProductPage(`${base}${path}`, local)).toMatchObject({
        ok: false,
        reason: 'PAGE_TOO_LARGE',
      });
    }
    // The same page fits under a larger cap: the cap, not the page, decides.
    expect(
      await fetchProductPage(`${base}/huge-declared`, { ...local, maxBytes: 1024 * 1024 }),
    ).toMatchObject({
      ok: true,
    });
  });

  it('reports a non-2xx status', async () => {
    expect(await fetchProductPage(`${base}/missing`, local)).toMatchObject({
      ok: false,
      reason: 'HTTP_STATUS',
      status: 404,
    });
  });

  it('gives up at the deadline', async () => {
    expect(await fetchProductPage(`${base}/hang`, { ...local, timeoutMs: 300 })).toMatchObject({
      ok: false,
      reason: 'TIMEOUT',
    });
  });

  it('refuses a URL that is not absolute', async () => {
    expect(await fetchProductPage('/products/x', local)).toMatchObject({
      ok: false,
      reason: 'URL_NOT_ALLOWED',
    });
  });
});
