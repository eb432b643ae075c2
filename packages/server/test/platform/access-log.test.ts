import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LOGGED_PATH } from '../../src/platform/http/access-log.js';
import { createLogger } from '../../src/platform/logger.js';
import { ADDRESS, as, BUYER, makeKey, PROTOCOL, sandboxUser } from '../commerce/helpers.js';
import { startTestService, type TestService } from '../helpers/start.js';

/**
 * The access log as the server writes it (createLogger, the production logger), read back
 * line by line: one line per request with exactly these fields, after the response, and the
 * logger's redaction still in force for everything else logged through it.
 */
describe('access log', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('commerce', { logger });
  });
  afterAll(() => svc?.close());

  const FIELDS = [
    'hostname',
    'level',
    'method',
    'ms',
    'msg',
    'name',
    'path',
    'pid',
    'requestId',
    'status',
    'time',
  ];
  const lineFor = (requestId: string | null) => {
    const found = lines.filter((l) => l.msg === 'request' && l.requestId === requestId);
    expect(found, `one access line for ${requestId}`).toHaveLength(1);
    return found[0] as Record<string, unknown>;
  };

  it('writes one line per request, with its request id, method, path (no query), status and time', async () => {
    const key = await makeKey(svc, 'sandbox');
    const user = await sandboxUser(svc, key);
    const made = await user.call('POST', '/v1/checkouts', {
      product_url: `${PROTOCOL}/mug`,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    const answers = [
      [await user.call('GET', `/v1/checkouts/${made.body.id}`), 'GET', `/v1/checkouts/${made.body.id}`, 200],
      [
        await as(svc, key)('GET', `/v1/checkouts/${made.body.id}`),
        'GET',
        `/v1/checkouts/${made.body.id}`,
        401,
      ],
      [await user.call('GET', '/v1/nowhere?token=secret-in-query'), 'GET', '/v1/nowhere', 404],
      [await user.call('DELETE', '/v1/checkouts'), 'DELETE', '/v1/checkouts', 405],
    ] as const;
    // The line is written once the response has finished, after the client has it.
    await new Promise((r) => setTimeout(r, 50));
    for (const [res, method, path, status] of answers) {
      expect(res.status).toBe(status);
      const line = lineFor(res.headers.get('service-request-id'));
      expect(Object.keys(line).sort()).toEqual(FIELDS);
      expect(line).toMatchObject({ level: 30, name: 'svc', method, path, status, msg: 'request' });
      expect(typeof line.ms).toBe('number');
      expect(line.ms as number).toBeGreaterThanOrEqual(0);
      expect(JSON.stringify(line)).not.toContain('secret-in-query');
    }
  });

  it('writes the start of a very long path and how many characters it left out', async () => {
    const key = await makeKey(svc, 'sandbox');
    const user = await sandboxUser(svc, key);
    const path = `/v1/${'a'.repeat(12_000)}`;
    const res = await user.call('GET', path);
    expect(res.status).toBe(404);
    await new Promise((r) => setTimeout(r, 50));
    const line = lineFor(res.headers.get('service-request-id'));
    expect(Object.keys(line).sort()).toEqual(FIELDS);
    expect(line.path).toBe(
      `${path.slice(0, MAX_LOGGED_PATH)}…[${path.length - MAX_LOGGED_PATH} more characters]`,
    );
    expect(JSON.stringify(line).length).toBeLessThan(MAX_LOGGED_PATH + 400);
  });

  it("keeps the logger's redaction for everything else logged through it", () => {
    logger.info(
      {
        req: { headers: { authorization: 'Bearer svc_test_x', 'service-user-token': 'user-x' } },
        checkout: { token: 'tok', user_token: 'user-y', public_token: 'pub', apiKey: 'k', secret: 's' },
      },
      'something',
    );
    const line = lines.at(-1) as any;
    expect(line.msg).toBe('something');
    expect(line.req.headers).toEqual({ authorization: '[redacted]', 'service-user-token': '[redacted]' });
    expect(line.checkout).toEqual({
      token: '[redacted]',
      user_token: '[redacted]',
      public_token: '[redacted]',
      apiKey: '[redacted]',
      secret: '[redacted]',
    });
  });
});
