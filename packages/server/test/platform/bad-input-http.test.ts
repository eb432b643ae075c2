import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../src/platform/http/errors-middleware.js';
import { makeKey, sandboxUser } from '../commerce/helpers.js';
import { makeKey as makeContentKey } from '../content/mcp-helpers.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/**
 * Bad input on every operation of both services, over raw HTTP (node:http, so the test
 * controls the path bytes, the headers and how much of the body is sent). Every answer must be
 * a 4xx in the documented error shape; none may be a 500.
 */

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

function raw(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<Raw> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, headers: opts.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            // HTML pages stay as text.
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The documented error shape, exactly, with the request id of the response. */
function expectError(res: Raw, status: number, code: string, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBe(status);
  expect(ErrorBody.safeParse(res.json).success, `${what}: ${res.text}`).toBe(true);
  expect(res.json.error.code, what).toBe(code);
  expect(res.json.error.request_id, what).toBe(res.headers['service-request-id']);
}

interface Op {
  path: string;
  method: string;
  op: any;
}
const operations = (doc: any): Op[] =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
const takesJson = (o: Op) => Boolean(o.op.requestBody?.content?.['application/json']);
const takesMultipart = (o: Op) => Boolean(o.op.requestBody?.content?.['multipart/form-data']);

/** A well-formed body of the operation's kind, so only the part under test is wrong. */
function validBody(o: Op): { headers: Record<string, string>; body?: string } {
  if (takesJson(o)) return { headers: { 'content-type': 'application/json' }, body: '{}' };
  if (takesMultipart(o)) {
    return {
      headers: { 'content-type': 'multipart/form-data; boundary=zz' },
      body: '--zz\r\nContent-Disposition: form-data; name="alt"\r\n\r\nx\r\n--zz--\r\n',
    };
  }
  return { headers: {} };
}
const fill = (path: string) => path.replace(/\{[A-Za-z_]+\}/g, 'zz');

interface Target {
  name: 'content' | 'commerce';
  svc: TestService;
  ops: Op[];
  /** Credentials that pass every route's authentication. */
  auth: Record<string, string>;
}

const targets: Record<'content' | 'commerce', Target> = {} as never;

beforeAll(async () => {
  const content = await startTestService('content');
  const commerce = await startTestService('commerce');
  const key = await makeKey(commerce, 'sandbox');
  const { userToken } = await sandboxUser(commerce, key);
  for (const [name, svc, auth] of [
    ['content', content, {}],
    ['commerce', commerce, { authorization: `Bearer ${key}`, 'service-user-token': userToken }],
  ] as const) {
    const doc = (await api(svc.url, 'GET', '/v1/openapi.json')).body;
    targets[name] = { name, svc, ops: operations(doc), auth };
  }
});
afterAll(async () => {
  await Promise.all(Object.values(targets).map((t) => t.svc.close()));
});

describe.each(['content', 'commerce'] as const)('%s: bad input on every operation', (name) => {
  it('answers a malformed percent-escape in any path parameter with 400, before authentication', async () => {
    const { svc, ops } = targets[name];
    const withParams = ops.filter((o) => o.path.includes('{'));
    expect(withParams.length).toBeGreaterThan(name === 'content' ? 40 : 10);
    for (const { path, method } of withParams) {
      for (const bad of ['%ZZ', '%E0%A4%A', 'a%']) {
        const target = fill(path.replace(/\{[A-Za-z_]+\}/, bad));
        const res = await raw(svc.url, method, target);
        expectError(res, 400, 'INVALID_REQUEST', `${method} ${target}`);
        expect(res.json.error.param).toBe('path');
        expect(res.json.error.message).toContain('percent-escape');
      }
    }
  });

  it('refuses a compressed body with 415 on every JSON operation, whatever it really holds', async () => {
    const { svc, ops, auth } = targets[name];
    const withBody = ops.filter(takesJson);
    expect(withBody.length).toBeGreaterThan(name === 'content' ? 30 : 8);
    const codings = ['gzip', 'deflate', 'br', 'GZIP', 'x-gzip'];
    for (const [i, { path, method }] of withBody.entries()) {
      const coding = codings[i % codings.length] as string;
      const res = await raw(svc.url, method, fill(path), {
        headers: { ...auth, 'content-type': 'application/json', 'content-encoding': coding },
        body: '{"name":"not compressed"}',
      });
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', `${method} ${path} (${coding})`);
      expect(res.json.error.message).toContain('Content-Encoding');
    }
  });

  it('refuses invalid UTF-8 in a JSON body on every JSON operation instead of replacing it', async () => {
    const { svc, ops, auth } = targets[name];
    const bytes = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    for (const { path, method } of ops.filter(takesJson)) {
      const res = await raw(svc.url, method, fill(path), {
        headers: { ...auth, 'content-type': 'application/json' },
        body: bytes,
      });
      expectError(res, 400, 'INVALID_JSON', `${method} ${path}`);
      expect(res.json.error.message).toContain('UTF-8');
    }
  });

  it('refuses an unknown query parameter on every operation, naming it', async () => {
    const { svc, ops, auth } = targets[name];
    // The OAuth callback takes whatever the platform sends back (its query is a declared record).
    const checked = ops.filter((o) => !o.path.startsWith('/oauth/'));
    for (const o of checked) {
      const { path, method } = o;
      const { headers, body } = validBody(o);
      const res = await raw(svc.url, method, `${fill(path)}?zz_unknown=1`, {
        headers: { ...auth, ...headers },
        ...(body === undefined ? {} : { body }),
      });
      expectError(res, 400, 'INVALID_REQUEST', `${method} ${path}?zz_unknown=1`);
      expect(res.json.error.param, `${method} ${path}`).toBe('zz_unknown');
      expect(res.json.error.message).toContain("'zz_unknown'");
    }
  });

  it('says a numeric query parameter given a word is invalid, not missing, on every operation that has one', async () => {
    const { svc, ops, auth } = targets[name];
    const numeric = ops.flatMap((o) =>
      ((o.op.parameters ?? []) as any[])
        .filter((p) => p.in === 'query' && ['integer', 'number'].includes(p.schema?.type))
        .map((p) => ({ o, param: p.name as string })),
    );
    expect(numeric.length).toBeGreaterThan(0);
    for (const { o, param } of numeric) {
      const { headers, body } = validBody(o);
      const target = `${fill(o.path)}?${param}=abc`;
      const res = await raw(svc.url, o.method, target, {
        headers: { ...auth, ...headers },
        ...(body === undefined ? {} : { body }),
      });
      expectError(res, 400, 'INVALID_REQUEST', `${o.method} ${target}`);
      expect(res.json.error.param, `${o.method} ${target}`).toBe(param);
      expect(res.json.error.message, `${o.method} ${target}`).toContain(`'${param}' is invalid`);
    }
  });

  it('refuses a body that declares more than the limit at once, without reading it, and closes', async () => {
    const { svc, ops } = targets[name];
    const targetsToTry = [
      ...ops.filter(takesJson).slice(0, 3),
      // A GET with a body would otherwise have it drained after the answer.
      ...ops.filter((o) => o.method === 'GET').slice(0, 1),
    ];
    for (const { path, method } of targetsToTry) {
      const res = await declaredTooLarge(svc.url, method, fill(path), 'application/json');
      expect(res.status, `${method} ${path}`).toBe(413);
      expect(JSON.parse(res.text).error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(res.connection).toBe('close');
    }
  });

  it('cuts off a chunked body as soon as it passes the limit, and closes', async () => {
    const { svc, ops } = targets[name];
    const { path, method } = ops.find(takesJson) as Op;
    // Over the 1 MiB limit, and never ended: a server that reads to the end never answers.
    const res = await partialBody(
      svc.url,
      method,
      fill(path),
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      `{"name":"${'x'.repeat(1024 * 1024 + 10)}`,
    );
    expect(res.status, res.text).toBe(413);
    expect(JSON.parse(res.text).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(res.connection).toBe('close');
  });
});

/**
 * Sends the headers and the start of a body that never ends, then waits for the answer: a
 * server that reads the body to the end before refusing it never answers.
 */
function partialBody(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  start: string,
) {
  const url = new URL(base);
  return new Promise<{ status: number; text: string; connection: string | undefined; type: string }>(
    (resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, method, path, agent: false, headers });
      req.on('response', (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          resolve({
            status: r.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            connection: r.headers.connection,
            type: r.headers['content-type'] ?? '',
          });
          req.destroy();
        });
      });
      // The server may close while the client still believes it has a body to send.
      req.on('error', (err: NodeJS.ErrnoException) =>
        err.code === 'ECONNRESET' || err.code === 'EPIPE' ? undefined : reject(err),
      );
      req.write(start);
    },
  );
}

/** The headers of a 50 MB body and only 10 bytes of it. */
const declaredTooLarge = (base: string, method: string, path: string, contentType: string) =>
  partialBody(
    base,
    method,
    path,
    { 'content-type': contentType, 'content-length': String(50 * 1024 * 1024), origin: base },
    '{"name":"x',
  );
describe('HTML forms answer bad input with an HTML 4xx page', () => {
  const form = (n: number) =>
    Array.from({ length: n }, (_, i) => `f${i}=${i}`)
      .concat('decision=approve')
      .join('&');

  it.each([
    ['/hosted/approve', 150],
    ['/hosted/confirm', 150],
    ['/dashboard/endpoints', 30],
    ['/dashboard/events/evt_zz/resend', 30],
  ])('POST %s with %i fields is a 413 page', async (path, n) => {
    const { svc } = targets.commerce;
    const res = await raw(svc.url, 'POST', path, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: svc.url },
      body: form(n),
    });
    expect(res.status, res.text).toBe(413);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('more fields');
  });

  it.each(['/hosted/approve', '/dashboard/endpoints'])(
    'POST %s compressed is a 415 page, and one declared too large is a 413 page',
    async (path) => {
      const { svc } = targets.commerce;
      const headers = { 'content-type': 'application/x-www-form-urlencoded', origin: svc.url };
      const zipped = await raw(svc.url, 'POST', path, {
        headers: { ...headers, 'content-encoding': 'gzip' },
        body: 'decision=approve',
      });
      expect(zipped.status, zipped.text).toBe(415);
      expect(zipped.headers['content-type']).toMatch(/^text\/html/);
      expect(zipped.text).toContain('Compressed');

      const huge = await declaredTooLarge(svc.url, 'POST', path, headers['content-type']);
      expect(huge.status, huge.text).toBe(413);
      expect(huge.type).toMatch(/^text\/html/);
      expect(huge.connection).toBe('close');
    },
  );
});

describe('content: POST /mcp refuses the same bad bodies, in JSON-RPC', () => {
  const init = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
  const post = async (headers: Record<string, string>, body: Buffer | string) => {
    const { svc } = targets.content;
    const key = await makeContentKey(svc, ['read']);
    return raw(svc.url, 'POST', '/mcp', {
      headers: {
        authorization: `Bearer ${key.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body,
    });
  };

  it.each(['gzip', 'deflate', 'br'])('Content-Encoding: %s is a 415', async (coding) => {
    const res = await post({ 'content-encoding': coding }, init);
    expect(res.status, res.text).toBe(415);
    expect(res.json.jsonrpc).toBe('2.0');
    expect(res.json.error.message).toContain('Content-Encoding');
  });

  it('invalid UTF-8 is a parse error, not replaced', async () => {
    const res = await post(
      {},
      Buffer.concat([
        Buffer.from(init.slice(0, -1)),
        Buffer.from(',"x":"'),
        Buffer.from([0xff]),
        Buffer.from('"}'),
      ]),
    );
    expect(res.status, res.text).toBe(400);
    expect(res.json.error.code).toBe(-32700);
    expect(res.json.error.message).toContain('UTF-8');
  });
});

describe('commerce: the dashboard answers a malformed id in its own HTML', () => {
  it.each([
    '/dashboard/endpoints/%ZZ/remove',
    '/dashboard/endpoints/%ZZ/test',
    '/dashboard/events/%ZZ/resend',
  ])('POST %s is an HTML 400', async (path) => {
    const { svc } = targets.commerce;
    const res = await raw(svc.url, 'POST', path, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: svc.url },
      body: 'endpoint_id=x',
    });
    expect(res.status, res.text).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('percent-escape');
  });
});
