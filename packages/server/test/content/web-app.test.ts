import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** The app's build output (packages/app/dist), which the server serves when run from source. */
export const APP_DIST = join(dirname(fileURLToPath(import.meta.url)), '../../../app/dist');

/** node:http sends the path exactly as written (fetch would normalise it) and any headers. */
function raw(base: string, path: string, headers: Record<string, string> = {}, method = 'GET') {
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = request({ host: hostname, port, path, method, headers }, (res) => {
        let data = '';
        res.on('data', (c) => {
          data += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

/** How a request can claim not to be local. */
const REMOTE: Record<string, string>[] = [{ host: 'svc.example.com' }, { 'x-forwarded-for': '203.0.113.7' }];
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

function manifest(): Record<string, { file: string; isEntry?: boolean; imports?: string[] }> {
  return JSON.parse(readFileSync(join(APP_DIST, '.vite/manifest.json'), 'utf8'));
}

describe('the web app at /', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('content');
  });
  afterAll(() => svc.close());

  it('serves the app at / with a strict Content-Security-Policy and no CDN', async () => {
    const res = await raw(svc.url, '/', BROWSER);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "img-src 'self' data: blob:",
      "frame-ancestors 'none'",
    ])
      expect(csp).toContain(directive);
    expect(res.body).toContain('<div id="app"><p class="loading boot" role="status">Loading svc…</p></div>');
    expect(res.body).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    expect(res.body).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it("answers / with the app for any GET, and the app's deeper pages for a browser navigating to them", async () => {
    for (const headers of [BROWSER, {}]) {
      const res = await raw(svc.url, '/', headers);
      expect(res.status).toBe(200);
      expect(res.body).toContain(
        '<div id="app"><p class="loading boot" role="status">Loading svc…</p></div>',
      );
    }
    const page = await raw(svc.url, '/approvals', BROWSER);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="app"><p class="loading boot" role="status">Loading svc…</p></div>');
    // curl, fetch() and API clients (Accept: */*) get an honest 404 for a path that is not the API's.
    const plain = await raw(svc.url, '/approvals', { accept: '*/*' });
    expect(plain.status).toBe(404);
    expect(JSON.parse(plain.body).error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('loads the app for every page it can show opened directly (ids have capitals), and for unknown pages', async () => {
    const brand = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Paths' } });
    const draft = await api(svc.url, 'POST', '/v1/drafts', {
      body: { brand_id: brand.body.id, platform: 'x', text: 'Reload me' },
    });
    expect(draft.status).toBe(201);
    expect(draft.body.id).toMatch(/[A-Z]/);
    for (const path of [
      `/drafts/${draft.body.id}`,
      '/posts/post_4fW9kQ2ZxY7bN1mR8sT3uV5w',
      '/agents/runs/run_Qm8xR2pL9sK4tN7vB1cZ3dF6',
      '/campaigns/cmp_Zz9YxW8vU7tS6rQ5pO4nM3lK',
      // Unknown to the app: it answers with its own "Page not found", not the server's JSON.
      '/Approvals',
      '/approvals/',
      '/nope',
      '/approvals%2Fx',
    ]) {
      const res = await raw(svc.url, path, BROWSER);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toContain(
        '<div id="app"><p class="loading boot" role="status">Loading svc…</p></div>',
      );
      expect(res.headers['content-security-policy'], path).toContain("script-src 'self'");
    }
  });

  it('serves the built files, and an unknown one is a JSON 404', async () => {
    const entry = Object.values(manifest()).find((c) => c.isEntry);
    const res = await raw(svc.url, `/${entry?.file}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toBe(readFileSync(join(APP_DIST, entry?.file ?? ''), 'utf8'));
    const missing = await raw(svc.url, '/assets/nope.js');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).error.code).toBe('ROUTE_NOT_FOUND');
  });

  it("keeps the server's own paths: unknown API paths in any spelling stay JSON 404s", async () => {
    for (const path of [
      '/v1/nope',
      '/V1/nope',
      '//v1/nope',
      '/v1/api-keys/',
      '/HEALTH',
      '/health/',
      '/mcp/x',
      '/docs/x',
      '/oauth/x',
      '/media/x',
      '/.well-known/x',
      '/Assets/x.js',
      // Not a path the app could match: an empty or dot segment, a percent-escape that does not decode.
      '//approvals',
      '/%E0%A4%A',
      '/posts/%E0%A4%A',
      '/./approvals',
      '/posts/..',
    ]) {
      const res = await raw(svc.url, path, BROWSER);
      expect(res.status, path).toBe(404);
      // /media answers its own NOT_FOUND; every other path the router's ROUTE_NOT_FOUND.
      expect(JSON.parse(res.body).error.code, path).toMatch(/^(ROUTE_)?NOT_FOUND$/);
    }
    expect((await api(svc.url, 'GET', '/health')).status).toBe(200);
    expect((await raw(svc.url, '/docs', BROWSER)).body).toContain('<redoc');
    expect((await api(svc.url, 'GET', '/v1/mode')).body.label).toContain('sandbox');
  });

  it('gives a client that accepts only JSON a JSON 404, and the app no POST', async () => {
    const json = await raw(svc.url, '/approvals', { accept: 'application/json' });
    expect(json.status).toBe(404);
    expect(JSON.parse(json.body).error.code).toBe('ROUTE_NOT_FOUND');
    const post = await raw(svc.url, '/', BROWSER, 'POST');
    expect(post.status).toBe(404);
    expect(JSON.parse(post.body).error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('sits behind the same guard as the REST API: local requests only, never cross-site', async () => {
    const entry = Object.values(manifest()).find((c) => c.isEntry);
    for (const path of ['/', '/approvals', `/${entry?.file}`]) {
      for (const headers of REMOTE) {
        const res = await raw(svc.url, path, { ...BROWSER, ...headers });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(JSON.parse(res.body).error.code).toBe('LOCAL_ONLY');
      }
      const cross = await raw(svc.url, path, { ...BROWSER, origin: 'https://evil.example' });
      expect(cross.status, path).toBe(403);
      expect(JSON.parse(cross.body).error.code).toBe('CROSS_ORIGIN_REQUEST');
    }
  });
});

describe('the web app bundle', () => {
  it('loads at most 200 KB of gzipped JavaScript on first load (the entry and its static imports)', () => {
    const chunks = manifest();
    const entry = Object.entries(chunks).find(([, c]) => c.isEntry);
    expect(entry, 'the build manifest names an entry').toBeTruthy();
    const seen = new Set<string>();
    const visit = (key: string) => {
      if (seen.has(key)) return;
      seen.add(key);
      for (const dep of chunks[key]?.imports ?? []) visit(dep);
    };
    visit(entry?.[0] ?? '');
    const gzipped = [...seen].reduce(
      (sum, key) => sum + gzipSync(readFileSync(join(APP_DIST, chunks[key]?.file ?? ''))).length,
      0,
    );
    expect(gzipped).toBeGreaterThan(1000);
    expect(gzipped).toBeLessThanOrEqual(200 * 1024);
  });
});
