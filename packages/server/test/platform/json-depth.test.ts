import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/platform/http/json-depth.js';
import { type Commerce, sandboxUser, startCommerce } from '../commerce/helpers.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** `levels` nested arrays around a number: about 10 kB at 5,000 levels. */
const nested = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

/**
 * A body nested thousands of levels deep must be refused as a bad request on every route, with
 * or without an Idempotency-Key, before anything recursive (the key's canonical JSON, validation)
 * walks it: it used to overflow the stack and answer 500.
 */
describe('deeply nested JSON bodies', () => {
  let content: TestService;
  let commerce: Commerce;
  beforeAll(async () => {
    [content, commerce] = await Promise.all([startTestService('content'), startCommerce()]);
  });
  afterAll(() => Promise.all([content.close(), commerce.close()]));

  const cases = [
    { service: 'content', path: '/v1/agents/digest/runs', body: (v: string) => `{"inputs":{"x":${v}}}` },
    { service: 'content', path: '/v1/brands', body: (v: string) => `{"name":"Deep","memory":${v}}` },
    { service: 'commerce', path: '/v1/checkouts', body: (v: string) => `{"product_url":${v}}` },
    { service: 'commerce', path: '/v1/sandbox/public_token', body: (v: string) => `{"rules":${v}}` },
  ] as const;

  for (const c of cases) {
    for (const key of [undefined, 'deep-key']) {
      it(`${c.service} POST ${c.path} ${key ? 'with' : 'without'} an Idempotency-Key: 400 INVALID_REQUEST`, async () => {
        const base = c.service === 'content' ? content.url : commerce.svc.url;
        const auth: Record<string, string> =
          c.service === 'content'
            ? {}
            : {
                authorization: `Bearer ${commerce.sandboxKey}`,
                'service-user-token': (await sandboxUser(commerce.svc, commerce.sandboxKey)).userToken,
              };
        const headers: Record<string, string> = {
          ...auth,
          ...(key ? { 'idempotency-key': `${key}-${c.path}` } : {}),
        };
        const res = await api(base, 'POST', c.path, { body: c.body(nested(5_000)), headers });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('INVALID_REQUEST');
        expect(res.body.error.message).toContain(`nested more than ${MAX_JSON_DEPTH} levels`);
        expect(res.body.error.request_id).toBe(res.headers.get('service-request-id'));
      });
    }
  }

  it('accepts nesting up to the limit (it is reached by validation, not refused for depth)', async () => {
    const res = await api(content.url, 'POST', '/v1/agents/digest/runs', {
      body: `{"inputs":{"x":${nested(MAX_JSON_DEPTH - 3)}}}`,
      headers: { 'idempotency-key': 'deep-ok' },
    });
    expect(res.body?.error?.message ?? '').not.toContain('nested more than');
    expect(res.status).toBeLessThan(500);
  });
});
