import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dashboardRoutes } from '../../src/commerce/routes/dashboard.js';
import type { DashboardContext } from '../../src/commerce/services/dashboard.js';
import { testConfig } from '../../src/config.js';
import { guardContentRoutes } from '../../src/content/app.js';
import { contentAuthenticators } from '../../src/content/auth.js';
import { defineRoute } from '../../src/content/route.js';
import { createHttpApp, finishHttpApp, mountRoutes } from '../../src/platform/http/index.js';
import { silentLogger } from '../../src/platform/logger.js';
import { makeBrand, makeDraft } from '../content/helpers.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

interface Raw {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * node:http sends the path exactly as written (fetch would normalise it) and lets the test set
 * Host, Origin, Sec-Fetch-Site and the forwarding headers.
 */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const { hostname, port } = new URL(base);
  return new Promise<Raw>((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers }, (res) => {
      let data = '';
      res.on('data', (c) => {
        data += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Refused or unknown (403, 404, 405, 415...): never handled, never redirected. */
const refused = (status: number) => status >= 400 && status < 500;

const json = (body: unknown) => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** How a request can claim not to be local, and how a browser marks a cross-site request. */
const REMOTE: Record<string, Record<string, string>> = {
  'a public Host': { host: 'svc.example.com' },
  'X-Forwarded-For': { 'x-forwarded-for': '203.0.113.7' },
};
const CROSS_SITE: Record<string, Record<string, string>> = {
  'Origin of another site': { origin: 'https://evil.example' },
  'Sec-Fetch-Site: cross-site': { 'sec-fetch-site': 'cross-site' },
  'Origin: null without Sec-Fetch-Site': { origin: 'null' },
  'Origin: null with Sec-Fetch-Site: cross-site': { origin: 'null', 'sec-fetch-site': 'cross-site' },
};

/**
 * Odd spellings of a guarded path: case, trailing slash, double slash, percent-encoding, dot
 * segments, and public prefixes walked back with `..`. Each must be refused or unknown; none
 * may reach the guarded handler without its guard.
 */
function spellings(path: string, publicPrefixes: string[]): string[] {
  const [, first = '', rest = ''] = /^\/([^/]+)(\/.*)?$/.exec(path) ?? [];
  const encodeFirst = `%${first.charCodeAt(0).toString(16)}${first.slice(1)}`;
  return [
    path.toUpperCase(),
    `/${first[0]?.toUpperCase()}${first.slice(1)}${rest}`,
    `/${first}${rest.toUpperCase()}`,
    `${path}/`,
    `/${path}`,
    `/${first}/${rest}`,
    `/${encodeFirst}${rest}`,
    `/${first}${rest.replaceAll('/', '%2F')}`,
    `/${first}${rest.replace(/^\/(.)/, (_, c: string) => `/%${c.charCodeAt(0).toString(16)}`)}`,
    `/./${first}${rest}`,
    `/x/../${first}${rest}`,
    `/%2e%2e/${first}${rest}`,
    ...publicPrefixes.flatMap((p) => [
      `${p}/../${first}${rest}`,
      `${p}/%2e%2e/${first}${rest}`,
      `${p}%2F..%2F${first}${rest}`,
    ]),
  ];
}

describe('content: the guards cover exactly what the router routes to the person', () => {
  let svc: TestService;
  let openapi: { paths: Record<string, Record<string, unknown>> };
  beforeAll(async () => {
    svc = await startTestService('content');
    openapi = (await api(svc.url, 'GET', '/v1/openapi.json')).body;
  });
  afterAll(() => svc.close());

  const PUBLIC = ['/health', '/mcp', '/media', '/oauth/x/callback'];

  it('answers no odd spelling of a gated path from a tunnel', async () => {
    await api(svc.url, 'POST', '/v1/api-keys', { body: { name: 'secret-list', scopes: ['read'] } });
    for (const path of spellings('/v1/api-keys', PUBLIC)) {
      for (const [label, headers] of Object.entries(REMOTE)) {
        const res = await raw(svc.url, 'GET', path, headers);
        expect(refused(res.status), `${path} with ${label}: ${res.status}`).toBe(true);
        expect(res.body, `${path} with ${label}`).not.toContain('secret-list');
      }
    }
  });

  it('refuses a cross-site POST in any spelling that routes (CSRF)', async () => {
    const brand = await makeBrand(svc);
    const draft = await makeDraft(svc, brand.id);
    const approval = (await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: draft } })).body;
    const approve = `/v1/approvals/${approval.id}/approve`;
    for (const [label, headers] of Object.entries(CROSS_SITE)) {
      for (const path of [approve, ...spellings(approve, PUBLIC)]) {
        const res = await raw(svc.url, 'POST', path, headers);
        expect(refused(res.status), `${path} with ${label}: ${res.status}`).toBe(true);
      }
      for (const path of ['/v1/api-keys', ...spellings('/v1/api-keys', PUBLIC)]) {
        const res = await raw(
          svc.url,
          'POST',
          path,
          { ...headers, ...json({ name: 'csrf', scopes: ['read'] }).headers },
          json({ name: 'csrf', scopes: ['read'] }).body,
        );
        expect(refused(res.status), `${path} with ${label}: ${res.status}`).toBe(true);
      }
    }
    expect((await api(svc.url, 'GET', `/v1/approvals/${approval.id}`)).body.status).toBe('pending');
    const names = (await api(svc.url, 'GET', '/v1/api-keys')).body.api_keys.map(
      (k: { name: string }) => k.name,
    );
    expect(names).not.toContain('csrf');
  });

  it('guards every REST operation but /health and the OAuth callback, by the route itself', async () => {
    const operations = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({
        method: method.toUpperCase(),
        path: path.replace(/\{[^}]+\}/g, 'x'),
      })),
    );
    expect(operations.length).toBeGreaterThan(50);
    const open: string[] = [];
    for (const { method, path } of operations) {
      const remote = await raw(svc.url, method, path, REMOTE['a public Host']);
      const crossSite = await raw(svc.url, method, path, CROSS_SITE['Origin of another site']);
      if (remote.status !== 403 || !remote.body.includes('LOCAL_ONLY')) open.push(`${method} ${path}`);
      else expect(crossSite.body, `${method} ${path}`).toContain('CROSS_ORIGIN_REQUEST');
    }
    expect(open.sort()).toEqual(['GET /health', 'GET /oauth/x/callback']);
  });

  it('keeps the public surface public: /health, /mcp, /media and the OAuth callback', async () => {
    const tunnel = { host: 'tunnel.example.com', 'x-forwarded-for': '203.0.113.7' };
    expect((await raw(svc.url, 'GET', '/health', tunnel)).status).toBe(200);
    expect((await raw(svc.url, 'POST', '/mcp', tunnel)).status).toBe(401);
    const media = await raw(svc.url, 'GET', '/media/med_x/wide.png', tunnel);
    expect(media.status).toBe(404);
    expect(media.body).toContain('NOT_FOUND');
    const callback = await raw(svc.url, 'GET', '/oauth/x/callback?code=c&state=s', tunnel);
    expect(callback.body).not.toContain('LOCAL_ONLY');
  });

  it('has one spelling per resource: a different case or a trailing slash is another (unknown) path', async () => {
    for (const path of ['/V1/api-keys', '/v1/API-KEYS', '/v1/api-keys/', '/HEALTH', '/health/']) {
      const res = await raw(svc.url, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body).error.code, path).toBe('ROUTE_NOT_FOUND');
    }
  });

  it('with SERVICE_PUBLIC_API=all opens the REST API to other hosts but keeps the CSRF check', async () => {
    const all = await startTestService('content', {
      config: { localOnly: false, content: { port: 3000, publicUrl: 'http://svc.example.com' } },
    });
    try {
      expect((await raw(all.url, 'GET', '/v1/api-keys', REMOTE['a public Host'])).status).toBe(200);
      const csrf = await raw(
        all.url,
        'POST',
        '/v1/api-keys',
        { ...CROSS_SITE['Origin of another site'], ...json({}).headers },
        '{}',
      );
      expect(JSON.parse(csrf.body).error.code).toBe('CROSS_ORIGIN_REQUEST');
    } finally {
      await all.close();
    }
  });
});

describe('commerce: the dashboard guard covers exactly what the router routes to the dashboard', () => {
  let svc: TestService;
  let secret: string;
  beforeAll(async () => {
    svc = await startTestService('commerce');
    const made = await api(svc.url, 'POST', '/dashboard/api/webhook_endpoints', {
      body: { env: 'sandbox', url: 'https://hooks.example.com/existing' },
    });
    secret = made.body.secret;
  });
  afterAll(() => svc.close());

  const endpointUrls = async () =>
    (await api(svc.url, 'GET', '/dashboard/api/webhook_endpoints')).body.endpoints.map(
      (e: { url: string }) => e.url,
    );
  const PUBLIC = ['/v1', '/v1/health', '/hosted/approve', '/hosted'];

  it('gives no webhook secret to a tunnel, whatever the spelling', async () => {
    expect(secret).toMatch(/^whsec_/);
    for (const path of ['/dashboard', '/dashboard/api/webhook_endpoints']) {
      for (const spelled of [path, ...spellings(path, PUBLIC)]) {
        for (const [label, headers] of Object.entries(REMOTE)) {
          const res = await raw(svc.url, 'GET', spelled, headers);
          expect(refused(res.status), `${spelled} with ${label}: ${res.status}`).toBe(true);
          expect(res.body, `${spelled} with ${label}`).not.toContain(secret);
        }
      }
    }
  });

  it('adds no endpoint from a cross-site form, whatever the spelling', async () => {
    const before = await endpointUrls();
    const add = form({ env: 'sandbox', url: 'https://evil.example/hook' });
    for (const [label, headers] of Object.entries(CROSS_SITE)) {
      for (const path of [
        '/dashboard/endpoints',
        ...spellings('/dashboard/endpoints', PUBLIC),
        '/Dashboard/Endpoints',
      ]) {
        const res = await raw(svc.url, 'POST', path, { ...headers, ...add.headers }, add.body);
        expect(refused(res.status), `${path} with ${label}: ${res.status}`).toBe(true);
      }
      const api = json({ env: 'sandbox', url: 'https://evil.example/api' });
      for (const path of [
        '/dashboard/api/webhook_endpoints',
        ...spellings('/dashboard/api/webhook_endpoints', PUBLIC),
      ]) {
        const res = await raw(svc.url, 'POST', path, { ...headers, ...api.headers }, api.body);
        expect(refused(res.status), `${path} with ${label}: ${res.status}`).toBe(true);
      }
    }
    expect(await endpointUrls()).toEqual(before);
  });

  it('guards every dashboard route, JSON and HTML, in its canonical spelling', async () => {
    const routes = dashboardRoutes({} as DashboardContext).map((r) => ({
      method: r.method.toUpperCase(),
      path: r.path.replace(/:[a-z_]+/g, 'x'),
    }));
    const pages = [
      { method: 'GET', path: '/dashboard' },
      { method: 'POST', path: '/dashboard/endpoints' },
      { method: 'POST', path: '/dashboard/endpoints/x/test' },
      { method: 'POST', path: '/dashboard/endpoints/x/remove' },
      { method: 'POST', path: '/dashboard/events/x/resend' },
      { method: 'POST', path: '/dashboard/api-keys' },
      { method: 'POST', path: '/dashboard/api-keys/x/revoke' },
    ];
    for (const { method, path } of [...routes, ...pages]) {
      for (const headers of Object.values(REMOTE)) {
        const res = await raw(svc.url, method, path, headers);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(JSON.parse(res.body).error.code, `${method} ${path}`).toBe('LOCAL_ONLY');
      }
      for (const headers of Object.values(CROSS_SITE)) {
        const res = await raw(svc.url, method, path, headers);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(JSON.parse(res.body).error.code, `${method} ${path}`).toBe('CROSS_ORIGIN_REQUEST');
      }
    }
  });

  it('tells a remote caller how to reach the dashboard, without suggesting SERVICE_PUBLIC_API', async () => {
    const res = await raw(svc.url, 'GET', '/dashboard', REMOTE['a public Host']);
    const message = JSON.parse(res.body).error.message as string;
    expect(message).toMatch(/machine the server runs on/);
    expect(message).toMatch(/ssh -N -L/);
    expect(message).not.toMatch(/SERVICE_PUBLIC_API/);
  });

  it('keeps the API reachable from other hosts', async () => {
    expect((await raw(svc.url, 'GET', '/v1/health', REMOTE['a public Host'])).status).toBe(200);
  });

  it("accepts the page's own form post: same Origin, or Origin: null that the browser marks same-origin", async () => {
    const page = await raw(svc.url, 'GET', '/dashboard');
    expect(page.status).toBe(200);
    expect(page.headers['referrer-policy']).toBe('same-origin');
    const host = new URL(svc.url).host;
    const browsers: Record<string, string>[] = [
      { origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
      { origin: 'null', 'sec-fetch-site': 'same-origin' },
      {},
    ];
    for (const [i, headers] of browsers.entries()) {
      const add = form({ env: 'sandbox', url: `https://hooks.example.com/own-${i}` });
      const res = await raw(
        svc.url,
        'POST',
        '/dashboard/endpoints',
        { ...headers, ...add.headers },
        add.body,
      );
      expect(res.status, JSON.stringify(headers)).toBe(303);
      expect(res.headers.location).toMatch(/^\/dashboard\?ok=/);
    }
  });
});

describe('commerce: SERVICE_PUBLIC_API=all does not open the dashboard', () => {
  it('still answers the dashboard to local requests only', async () => {
    const svc = await startTestService('commerce', { config: { localOnly: false } });
    try {
      for (const path of ['/dashboard', '/dashboard/api/webhook_endpoints', '/dashboard/api/api_keys']) {
        for (const headers of Object.values(REMOTE)) {
          const res = await raw(svc.url, 'GET', path, headers);
          expect(res.status, path).toBe(403);
          expect(JSON.parse(res.body).error.code).toBe('LOCAL_ONLY');
          expect(res.body).not.toMatch(/SERVICE_PUBLIC_API/);
        }
      }
      expect((await raw(svc.url, 'GET', '/dashboard')).status).toBe(200);
    } finally {
      await svc.close();
    }
  });
});

describe('a route that trusts locality cannot be mounted without the guard', () => {
  const whoami = defineRoute({
    method: 'get',
    path: '/v1/whoami',
    auth: 'person',
    operationId: 'whoami',
    summary: 'test route',
    response: z.object({ person: z.string() }),
    handler: ({ auth }) => ({ person: auth.personId }),
  });

  async function serve(guarded: boolean) {
    const logger = silentLogger();
    const app = createHttpApp({ logger, bodyLimitBytes: 1024 * 1024 });
    const config = testConfig({ dataDir: '/nonexistent' });
    const routes = guarded ? guardContentRoutes([whoami], config) : [whoami];
    app.use(mountRoutes(routes, { authenticators: contentAuthenticators() }));
    finishHttpApp(app, logger);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
  }

  it('the person authenticator refuses a request that did not pass localTrustGuard', async () => {
    const bare = await serve(false);
    const guarded = await serve(true);
    try {
      expect((await raw(bare.url, 'GET', '/v1/whoami')).status).toBe(500);
      expect((await raw(guarded.url, 'GET', '/v1/whoami')).status).toBe(200);
      expect((await raw(guarded.url, 'GET', '/v1/whoami', REMOTE['a public Host'])).status).toBe(403);
    } finally {
      bare.close();
      guarded.close();
    }
  });
});
