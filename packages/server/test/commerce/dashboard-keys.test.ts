import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/start.js';
import { as, type Commerce, startCommerce } from './helpers.js';

describe('dashboard: API keys', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  const notice = (res: Response, kind: 'ok' | 'error') =>
    new URL(res.headers.get('location') ?? '', c.svc.url).searchParams.get(kind);
  const list = async () => (await api(c.svc.url, 'GET', '/dashboard/api/api_keys')).body.api_keys;

  it('creates a key, shows the secret only in that answer, and lists it without the secret', async () => {
    const made = await api(c.svc.url, 'POST', '/dashboard/api/api_keys', {
      body: { env: 'live', name: '  Checkout bot  ' },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      env: 'live',
      name: 'Checkout bot',
      revoked_at: null,
      last_used_at: null,
    });
    expect(made.body.key).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(made.body.prefix).toBe(made.body.key.slice(0, 12));

    const keys = await list();
    const { key: _secret, ...shown } = made.body;
    expect(keys.find((k: { id: string }) => k.id === made.body.id)).toEqual(shown);
    expect(JSON.stringify(keys)).not.toContain(made.body.key);
    // The two keys startCommerce made with the CLI's function are listed too.
    expect(keys).toHaveLength(3);
    const page = await (await fetch(`${c.svc.url}/dashboard`)).text();
    expect(page).toContain(made.body.prefix);
    expect(page).not.toContain(made.body.key);
  });

  it('revokes a key: the very next request made with it gets 401, and revoking again changes nothing', async () => {
    const made = (
      await api(c.svc.url, 'POST', '/dashboard/api/api_keys', {
        body: { env: 'sandbox', name: 'Short-lived' },
      })
    ).body;
    const call = as(c.svc, made.key);
    expect((await call('GET', '/v1/merchants')).status).toBe(200);

    const revoked = await api(c.svc.url, 'POST', `/dashboard/api/api_keys/${made.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toBe(c.svc.clock.now().toISOString());

    const after = await call('GET', '/v1/merchants');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('INVALID_API_KEY');

    c.svc.clock.advance(60_000);
    const again = await api(c.svc.url, 'POST', `/dashboard/api/api_keys/${made.id}/revoke`);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    expect((await list()).find((k: { id: string }) => k.id === made.id).revoked_at).toBe(
      revoked.body.revoked_at,
    );
    // Other keys keep working.
    expect((await as(c.svc, c.sandboxKey)('GET', '/v1/merchants')).status).toBe(200);
  });

  it('answers 404 for an unknown key and 400 for a bad name or environment', async () => {
    const missing = await api(c.svc.url, 'POST', '/dashboard/api/api_keys/key_nope/revoke');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    for (const body of [
      { env: 'sandbox', name: '   ' },
      { env: 'prod', name: 'x' },
      { env: 'sandbox', name: 'x'.repeat(101) },
    ]) {
      const res = await api(c.svc.url, 'POST', '/dashboard/api/api_keys', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('creates and revokes with the HTML forms, showing the key once on its own page', async () => {
    const created = await fetch(`${c.svc.url}/dashboard/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: c.svc.url },
      body: new URLSearchParams({ env: 'sandbox', name: 'Form key' }).toString(),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const key = /<code id="new-key">([^<]+)<\/code>/.exec(await created.text())?.[1] ?? '';
    expect((await as(c.svc, key)('GET', '/v1/merchants')).status).toBe(200);

    const id = (await list()).find((k: { name: string }) => k.name === 'Form key').id;
    const revoked = await fetch(`${c.svc.url}/dashboard/api-keys/${id}/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: c.svc.url },
    });
    expect(revoked.status).toBe(303);
    expect(notice(revoked, 'ok')).toMatch(/^Revoked Form key/);
    expect((await as(c.svc, key)('GET', '/v1/merchants')).status).toBe(401);

    const blank = await fetch(`${c.svc.url}/dashboard/api-keys`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ env: 'sandbox', name: ' ' }).toString(),
    });
    expect(blank.status).toBe(303);
    expect(notice(blank, 'error')).toMatch(/^Give the key a name/);
  });
});
