import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** The content API honours Idempotency-Key like the commerce API, so client retries are safe. */
describe('content idempotency keys', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('content');
  });
  afterAll(() => svc.close());

  it('creates once and replays the stored response for a repeat', async () => {
    const headers = { 'idempotency-key': 'brand-create-1' };
    const first = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Once' }, headers });
    const again = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Once' }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const list = await api(svc.url, 'GET', '/v1/brands');
    expect(list.body.brands.filter((b: { name: string }) => b.name === 'Once')).toHaveLength(1);
  });

  it('refuses the same key for a different request', async () => {
    const headers = { 'idempotency-key': 'brand-create-2' };
    await api(svc.url, 'POST', '/v1/brands', { body: { name: 'First' }, headers });
    const other = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Second' }, headers });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('INVALID_REQUEST');
  });

  it('does not store a validation failure, so a corrected retry with the same key works', async () => {
    const headers = { 'idempotency-key': 'brand-create-3' };
    const bad = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'X', colour: 'red' }, headers });
    expect(bad.status).toBe(400);
    const good = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'X' }, headers });
    expect(good.status).toBe(201);
  });

  it('refuses the same key for the same POST with another query (the next page), and replays the same query', async () => {
    const brand = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Paged' } });
    const path = `/v1/brands/${brand.body.id}/outcomes`;
    const headers = { 'idempotency-key': 'outcomes-page-1' };
    const first = await api(svc.url, 'POST', `${path}?limit=1`, { headers });
    expect(first.status).toBe(200);
    // A client walking pages with one key would otherwise be answered page 1 again and stop short.
    const next = await api(svc.url, 'POST', `${path}?limit=2`, { headers });
    expect(next.status).toBe(400);
    expect(next.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'Idempotency-Key' });
    const again = await api(svc.url, 'POST', `${path}?limit=1`, { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // A request without a query keeps the fingerprint it always had: no query part at all.
    const bare = { 'idempotency-key': 'outcomes-bare' };
    expect((await api(svc.url, 'POST', path, { headers: bare })).status).toBe(200);
    expect((await api(svc.url, 'POST', `${path}?limit=20`, { headers: bare })).status).toBe(400);
  });
});
