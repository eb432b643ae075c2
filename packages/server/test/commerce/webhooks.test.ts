import type { LookupAddress } from 'node:dns';
import { request } from 'node:http';
import { verifyEvent, verifySignature } from '@svc/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommerceServiceHandle, createCommerceApp } from '../../src/commerce/app.js';
import { createDispatcher } from '../../src/commerce/webhooks/dispatcher.js';
import { RETRY_DELAYS_MS } from '../../src/commerce/webhooks/schedule.js';
import { testConfig } from '../../src/config.js';
import { ManualClock } from '../../src/platform/clock.js';
import { randomIds } from '../../src/platform/ids.js';
import { silentLogger } from '../../src/platform/logger.js';
import { api } from '../helpers/start.js';
import {
  ADDRESS,
  as,
  BUYER,
  type Commerce,
  PROTOCOL,
  sandboxUser,
  startCommerce,
  startReceiver,
} from './helpers.js';

const ready = { buyer: BUYER, shipping_address: ADDRESS };

function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers }, (res) => {
      let data = '';
      res.on('data', (c) => {
        data += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('webhook endpoints: public https only', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce({ webhookAllowPrivate: false });
  });
  afterAll(() => c.close());

  it('rejects localhost, private, loopback, link-local, CGNAT, internal names and plain http', async () => {
    const app = as(c.svc, c.sandboxKey);
    for (const url of [
      'http://hooks.example.com/x',
      'https://localhost/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://192.168.1.10/x',
      'https://172.16.0.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/x',
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://printer.local/x',
      'https://svc.internal/x',
      'https://intranet/x',
      'https://user:pw@hooks.example.com/x',
    ]) {
      const res = await app('POST', '/v1/webhook_endpoints', { url });
      expect(res.status, url).toBe(400);
      expect(res.body.error.code, url).toBe('URL_NOT_ALLOWED');
      // The developer trying a local URL learns the switch exists; credentials it does not allow.
      if (url.includes('user:pw')) expect(res.body.error.message, url).not.toContain('ALLOW_PRIVATE');
      else expect(res.body.error.message, url).toContain('SERVICE_WEBHOOK_ALLOW_PRIVATE=1');
    }
    const bad = await app('POST', '/v1/webhook_endpoints', { url: 'not a url' });
    expect(bad.body.error.code).toBe('INVALID_URL');
    const ok = await app('POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.com/svc' });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ url: 'https://hooks.example.com/svc' });
    expect(ok.body.id).toMatch(/^whk_/);
    expect(ok.body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
  });

  it('allows at most 16 endpoints per environment: ENDPOINT_LIMIT_REACHED', async () => {
    const app = as(c.svc, c.liveKey);
    for (let i = 0; i < 16; i++) {
      expect((await app('POST', '/v1/webhook_endpoints', { url: `https://h${i}.example.com/` })).status).toBe(
        201,
      );
    }
    const res = await app('POST', '/v1/webhook_endpoints', { url: 'https://h17.example.com/' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('ENDPOINT_LIMIT_REACHED');
  });

  it('refuses a name that resolves to a private address at delivery (DNS checked and pinned)', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'dns' });
    const receiver = await startReceiver();
    try {
      const port = new URL(receiver.url).port;
      const endpoint = await as(c.svc, c.sandboxKey)('POST', '/v1/webhook_endpoints', {
        url: `https://rebind.example.com:${port}/hooks`,
      });
      expect(endpoint.status).toBe(201);
      await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/dns` });
      const lookups: string[] = [];
      const lookup = ((hostname: string, _opts: unknown, cb: (e: null, a: LookupAddress[]) => void) => {
        lookups.push(hostname);
        cb(null, [{ address: '127.0.0.1', family: 4 }]);
      }) as never;
      const dispatcher = createDispatcher({
        db: c.handle.db,
        clock: c.svc.clock,
        logger: silentLogger(),
        random: () => 0.5,
        allowPrivate: false,
        lookup,
      });
      const summary = await dispatcher.runDue();
      expect(summary.failed).toBeGreaterThan(0);
      expect(lookups).toContain('rebind.example.com');
      expect(receiver.received).toHaveLength(0);
      const deliveries = (
        await api(c.svc.url, 'GET', `/dashboard/api/deliveries?endpoint_id=${endpoint.body.id}`)
      ).body.deliveries;
      expect(deliveries[0].attempts[0].error).toMatch(/private or reserved/);
    } finally {
      await receiver.close();
    }
  });
});

describe('webhook delivery', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce({ webhookAllowPrivate: true });
  });
  afterAll(() => c.close());

  async function endpointFor(url: string, key = c.sandboxKey) {
    return (await as(c.svc, key)('POST', '/v1/webhook_endpoints', { url })).body as {
      id: string;
      secret: string;
    };
  }
  async function removeAll() {
    const list = (await api(c.svc.url, 'GET', '/dashboard/api/webhook_endpoints')).body.endpoints;
    for (const e of list) await api(c.svc.url, 'DELETE', `/dashboard/api/webhook_endpoints/${e.id}`);
  }

  it('keeps sandbox and live endpoints and secrets apart', async () => {
    await removeAll();
    const sandbox = await startReceiver();
    const live = await startReceiver();
    try {
      const s = await endpointFor(sandbox.url);
      const l = await endpointFor(live.url, c.liveKey);
      expect(s.secret).not.toBe(l.secret);
      const { call } = await sandboxUser(c.svc, c.sandboxKey);
      await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/split` });
      await c.handle.dispatcher.runDue();
      expect(sandbox.received.length).toBeGreaterThan(0);
      expect(live.received).toHaveLength(0);
    } finally {
      await sandbox.close();
      await live.close();
    }
  });

  it('signs every attempt afresh and retries after about 1m, 5m, 30m, 2h, 8h and 24h: seven attempts', async () => {
    await removeAll();
    const receiver = await startReceiver(() => ({ status: 500 }));
    try {
      const endpoint = await endpointFor(receiver.url);
      const { call } = await sandboxUser(c.svc, c.sandboxKey);
      await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/retry` });
      await c.handle.dispatcher.runDue();
      expect(receiver.received).toHaveLength(1);
      const eventId = receiver.received[0]?.event.id;

      for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
        const d = (await api(c.svc.url, 'GET', `/dashboard/api/deliveries?endpoint_id=${endpoint.id}`)).body
          .deliveries[0];
        expect(d.status).toBe('pending');
        expect(d.attempts).toHaveLength(i + 1);
        expect(d.attempts[i].response_status).toBe(500);
        const wait = Date.parse(d.next_attempt_at) - c.svc.clock.now().getTime();
        expect(wait).toBeGreaterThanOrEqual(delay * 0.9);
        expect(wait).toBeLessThanOrEqual(delay * 1.1);
        c.svc.clock.advance(wait - 1);
        await c.handle.dispatcher.runDue();
        expect(receiver.received).toHaveLength(i + 1); // not yet due
        c.svc.clock.advance(1);
        await c.handle.dispatcher.runDue();
        expect(receiver.received).toHaveLength(i + 2);
      }
      const last = (await api(c.svc.url, 'GET', `/dashboard/api/deliveries?endpoint_id=${endpoint.id}`)).body
        .deliveries[0];
      expect(last.status).toBe('failed');
      expect(last.attempts).toHaveLength(7);
      expect(last.next_attempt_at).toBeNull();
      c.svc.clock.advance(RETRY_DELAYS_MS[5] * 2);
      await c.handle.dispatcher.runDue();
      expect(receiver.received).toHaveLength(7);

      const stamps = receiver.received.map(
        (r) => /t=(\d+)/.exec(r.headers['service-signature'] as string)?.[1],
      );
      expect(new Set(stamps).size).toBe(7);
      const clock = { now: () => new Date(Number(stamps[6]) * 1000) };
      for (const r of receiver.received) {
        expect(r.event.id).toBe(eventId);
        const t = /t=(\d+)/.exec(r.headers['service-signature'] as string)?.[1];
        verifySignature(r.body, r.headers['service-signature'] as string, endpoint.secret, {
          now: new Date(Number(t) * 1000),
        });
      }
      expect(() =>
        verifySignature(
          receiver.received[0]?.body as string,
          receiver.received[0]?.headers['service-signature'] as string,
          endpoint.secret,
          clock,
        ),
      ).toThrow();
    } finally {
      await receiver.close();
    }
  });

  it('treats a redirect as a failure and never follows it', async () => {
    await removeAll();
    const target = await startReceiver();
    const redirector = await startReceiver(() => ({ status: 302, headers: { location: target.url } }));
    try {
      const endpoint = await endpointFor(redirector.url);
      const { call } = await sandboxUser(c.svc, c.sandboxKey);
      await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/redirect` });
      const summary = await c.handle.dispatcher.runDue();
      expect(summary.failed).toBe(1);
      expect(target.received).toHaveLength(0);
      const d = (await api(c.svc.url, 'GET', `/dashboard/api/deliveries?endpoint_id=${endpoint.id}`)).body
        .deliveries[0];
      expect(d.status).toBe('pending');
      expect(d.attempts[0]).toMatchObject({ response_status: 302 });
      expect(d.attempts[0].error).toMatch(/Redirect/);
    } finally {
      await target.close();
      await redirector.close();
    }
  });

  it('verifies with @svc/webhooks and carries the full object after the change', async () => {
    await removeAll();
    const receiver = await startReceiver();
    try {
      const endpoint = await endpointFor(receiver.url);
      const { call } = await sandboxUser(c.svc, c.sandboxKey);
      const chk = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/verified`, ...ready }))
        .body;
      await c.handle.dispatcher.runDue();
      const r = receiver.received[0];
      const event = verifyEvent(
        r?.body as string,
        r?.headers['service-signature'] as string,
        endpoint.secret,
        {
          now: () => c.svc.clock.now(),
        },
      );
      expect(event).toMatchObject({
        type: 'checkout.updated',
        data: { id: chk.id, status: 'ready_to_confirm' },
      });
      expect(event.created_at).toBe(c.svc.clock.now().toISOString());
      // The body is compact JSON with its keys in this order (the stored data is spliced in as text).
      expect(Object.keys(event)).toEqual(['id', 'type', 'created_at', 'data']);
      expect(r?.body).toBe(JSON.stringify(event));
      expect(r?.headers['content-type']).toBe('application/json');
      expect(() =>
        verifyEvent(`${r?.body} `, r?.headers['service-signature'] as string, endpoint.secret, {
          now: () => c.svc.clock.now(),
        }),
      ).toThrow();
    } finally {
      await receiver.close();
    }
  });

  it('dashboard: lists endpoints, sends a test, lists deliveries, resends, removes', async () => {
    await removeAll();
    const receiver = await startReceiver();
    try {
      const endpoint = await endpointFor(receiver.url);
      const list = await api(c.svc.url, 'GET', '/dashboard/api/webhook_endpoints');
      expect(list.body.endpoints).toEqual([expect.objectContaining({ id: endpoint.id, env: 'sandbox' })]);
      // The list never carries a signing secret: the dashboard shows one only on a deliberate reveal.
      expect(JSON.stringify(list.body)).not.toContain(endpoint.secret);

      const test = await api(c.svc.url, 'POST', `/dashboard/api/webhook_endpoints/${endpoint.id}/test`);
      expect(test.status).toBe(200);
      expect(test.body).toMatchObject({ status: 'succeeded', event_type: 'webhook.test' });
      expect(receiver.received[0]?.event.type).toBe('webhook.test');
      expect(receiver.received[0]?.event.data.id).toMatch(/^test_/);
      verifySignature(
        receiver.received[0]?.body as string,
        receiver.received[0]?.headers['service-signature'] as string,
        endpoint.secret,
        {
          now: () => c.svc.clock.now(),
        },
      );

      const resend = await api(c.svc.url, 'POST', `/dashboard/api/events/${test.body.event_id}/resend`, {
        body: {},
      });
      expect(resend.body.deliveries).toHaveLength(1);
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]?.event.id).toBe(receiver.received[0]?.event.id);

      const deliveries = await api(c.svc.url, 'GET', '/dashboard/api/deliveries');
      expect(deliveries.body.deliveries.filter((d: any) => d.event_id === test.body.event_id)).toHaveLength(
        2,
      );

      const page = await fetch(`${c.svc.url}/dashboard`);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain(endpoint.id);

      const removed = await api(c.svc.url, 'DELETE', `/dashboard/api/webhook_endpoints/${endpoint.id}`);
      expect(removed.body).toEqual({ id: endpoint.id, removed: true });
      expect((await api(c.svc.url, 'GET', '/dashboard/api/webhook_endpoints')).body.endpoints).toEqual([]);
      expect((await api(c.svc.url, 'DELETE', `/dashboard/api/webhook_endpoints/${endpoint.id}`)).status).toBe(
        404,
      );
      expect(
        (await api(c.svc.url, 'POST', '/dashboard/api/events/evt_nope/resend', { body: {} })).status,
      ).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('dashboard HTML forms work same-origin and refuse cross-origin posts', async () => {
    await removeAll();
    const form = (origin: string) =>
      fetch(`${c.svc.url}/dashboard/endpoints`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams({ env: 'sandbox', url: 'https://form.example.com/hook' }).toString(),
      });
    const evil = await form('https://evil.example');
    expect(evil.status).toBe(403);
    const ok = await form(c.svc.url);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toMatch(/^\/dashboard\?ok=/);
    const list = (await api(c.svc.url, 'GET', '/dashboard/api/webhook_endpoints')).body.endpoints;
    expect(list.map((e: any) => e.url)).toEqual(['https://form.example.com/hook']);
  });

  it('dashboard answers only local requests', async () => {
    const cases: Record<string, string>[] = [
      { host: 'svc.example.com' },
      { host: '127.0.0.1', 'x-forwarded-for': '203.0.113.9' },
    ];
    for (const headers of cases) {
      const res = await rawRequest(c.svc.url, 'GET', '/dashboard/api/webhook_endpoints', headers);
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe('LOCAL_ONLY');
    }
    // The API itself stays reachable through a proxy.
    const health = await rawRequest(c.svc.url, 'GET', '/v1/health', { host: 'svc.example.com' });
    expect(health.status).toBe(200);
  });
});

describe('webhook deliveries survive a restart', () => {
  it('delivers after the server restarts, both never-tried and retrying deliveries', async () => {
    const c = await startCommerce({ webhookAllowPrivate: true });
    let status = 500;
    const receiver = await startReceiver(() => ({ status }));
    let svc = c.svc;
    try {
      await as(svc, c.sandboxKey)('POST', '/v1/webhook_endpoints', { url: receiver.url });
      const { call } = await sandboxUser(svc, c.sandboxKey);
      const first = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/restart-a` })).body;
      await c.handle.dispatcher.runDue(); // fails with 500, retry in ~1 minute
      const second = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/restart-b` })).body; // never tried
      svc = await svc.restart();
      status = 200;
      svc.clock.advance(2 * 60_000);
      await (svc.handle as CommerceServiceHandle).dispatcher.runDue();
      const delivered = receiver.received
        .filter((r) => r.event.type === 'checkout.updated')
        .map((r) => r.event.data.id);
      expect(delivered).toContain(second.id);
      expect(delivered.filter((id) => id === first.id)).toHaveLength(2);
    } finally {
      await receiver.close();
      await svc.close();
    }
  });

  it('runs the dispatcher in the background when started, and logs a warning with SERVICE_WEBHOOK_ALLOW_PRIVATE', async () => {
    const warnings: string[] = [];
    const logger = Object.assign(silentLogger(), {
      warn: (msg: unknown, more?: unknown) => {
        warnings.push(typeof msg === 'string' ? msg : String(more));
      },
    });
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-commerce-warn-'));
    const handle = await createCommerceApp({
      config: testConfig({ dataDir, webhookAllowPrivate: true }),
      clock: new ManualClock(),
      ids: randomIds,
      logger,
      webhookPollMs: 20,
    });
    handle.startBackground();
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
    expect(warnings.some((w) => w.includes('SERVICE_WEBHOOK_ALLOW_PRIVATE'))).toBe(true);
  });
});
