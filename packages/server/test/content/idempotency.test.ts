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
});
