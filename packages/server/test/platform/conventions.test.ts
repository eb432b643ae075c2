import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** The conventions every response of both services follows, errors and unknown routes included. */
describe.each(['content', 'commerce'] as const)('%s service conventions', (name) => {
  let svc: TestService;
  const health = name === 'content' ? '/health' : '/v1/health';
  const postPath = name === 'content' ? '/v1/api-keys' : '/v1/health';

  beforeAll(async () => {
    svc = await startTestService(name, { config: { maxBodyBytes: 2048 } });
  });
  afterAll(() => svc.close());

  it('answers health without auth', async () => {
    const res = await api(svc.url, 'GET', health);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers.get('service-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
  });

  it('gives each request its own id', async () => {
    const a = await api(svc.url, 'GET', health);
    const b = await api(svc.url, 'GET', health);
    expect(a.headers.get('service-request-id')).not.toBe(b.headers.get('service-request-id'));
  });

  it('renders an unknown route in the error shape with the same request id', async () => {
    const res = await api(svc.url, 'GET', '/v1/does-not-exist');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('ROUTE_NOT_FOUND');
    expect(res.body.error.request_id).toBe(res.headers.get('service-request-id'));
    expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'request_id']);
  });

  it('refuses malformed JSON with INVALID_JSON', async () => {
    const res = await api(svc.url, 'POST', postPath, { body: '{"name": ' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_JSON');
    expect(res.body.error.request_id).toBe(res.headers.get('service-request-id'));
  });

  it('refuses a body over the size limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await api(svc.url, 'POST', postPath, { body: { name: 'x'.repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses a non-JSON content type with 415', async () => {
    const res = await api(svc.url, 'POST', postPath, {
      body: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers a wrong method on a known path with 405 and Allow', async () => {
    const res = await api(svc.url, 'PUT', health);
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('GET');
  });

  it('serves an OpenAPI 3.1 document', async () => {
    const res = await api(svc.url, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths[health].get.operationId).toBe('getHealth');
    expect(res.body.paths['/v1/openapi.json']).toBeUndefined();
  });

  it('never answers with HTML', async () => {
    const res = await fetch(`${svc.url}/%E0%A4%A`);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
  });
});
