import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { problems, SCHEMA } from './ucp-schemas.js';

/**
 * A UCP tokenization handler's tokenizer on loopback (a PSP or the store's vault), following the
 * shared tokenization API (../shared/platform-specs/ucp-2026-04-08/handlers/tokenization/openapi.json).
 * `POST /tokenize` takes a card credential and a binding (the store's checkout session, and the
 * store's identity at this tokenizer) and answers a token; `POST /detokenize` gives the card back
 * only for the same binding, so a token replayed onto another checkout is refused. Every request
 * body and every answer is checked against the published document (the card also against UCP's
 * card credential); a request that breaks it is answered 400 AND recorded in `violations`, so a
 * test fails on it. The buyer's browser calls `/tokenize` from svc's hosted page: the tokenizer
 * answers CORS for the one page origin it is told (`allowOrigin`), as a real one is configured to.
 */

export interface TokenizerRequest {
  method: string;
  path: string;
  origin: string | undefined;
  body: unknown;
}

export interface FakeTokenizer {
  /** http://127.0.0.x:port: the handler's `config.endpoint`. */
  endpoint: string;
  /** The store's identity at this tokenizer (`binding.identity.access_token`). */
  identity: string;
  /** The page origin the browser calls from (svc's COMMERCE_PUBLIC_URL origin). */
  allowOrigin: string;
  requests: TokenizerRequest[];
  violations: string[];
  /** Tokens issued, and what each was bound to (what a PSP keeps in its vault). */
  tokens: Map<string, { card: Record<string, unknown>; binding: unknown }>;
  /** Refuse every tokenize with 422 (a card the provider rejects). */
  refuseCards: boolean;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

export async function startTokenizer(
  opts: { host?: string; identity?: string; allowOrigin?: string } = {},
): Promise<FakeTokenizer> {
  const host = opts.host ?? '127.0.0.1';
  const requests: TokenizerRequest[] = [];
  const violations: string[] = [];
  const tokens: FakeTokenizer['tokens'] = new Map();

  const t: FakeTokenizer = {
    endpoint: '',
    identity: opts.identity ?? 'merchant_fake_store',
    allowOrigin: opts.allowOrigin ?? '',
    requests,
    violations,
    tokens,
    refuseCards: false,
    close: async () => undefined,
  };

  function send(req: IncomingMessage, res: ServerResponse, status: number, body: unknown) {
    const origin = req.headers.origin;
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(origin && origin === t.allowOrigin
        ? { 'access-control-allow-origin': origin, vary: 'Origin' }
        : {}),
    });
    res.end(JSON.stringify(body));
  }

  /** Checks one of our own answers against the document, so the fake cannot drift from it. */
  function answer(req: IncomingMessage, res: ServerResponse, ref: string, body: unknown, what: string) {
    const found = problems(ref, body);
    if (found.length) violations.push(`answer to ${what}: ${found.join('; ')}`);
    send(req, res, 200, body);
  }

  const sameBinding = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

  function handle(req: IncomingMessage, res: ServerResponse, path: string, body: any) {
    if (path === '/tokenize') {
      const wrong = [
        ...problems(SCHEMA.tokenizeRequest, body),
        ...(body?.credential ? problems(SCHEMA.cardCredential, body.credential) : []),
      ];
      // The platform tokenizes on the store's behalf: the binding must name the store's identity.
      if (body?.binding?.identity?.access_token !== t.identity)
        wrong.push(`binding.identity.access_token must be ${t.identity}`);
      if (req.headers.origin !== t.allowOrigin)
        wrong.push(`called from ${req.headers.origin ?? 'no origin'}, not the pay page`);
      if (wrong.length) {
        violations.push(`POST /tokenize: ${wrong.join('; ')}`);
        return send(req, res, 400, { error: 'invalid_request', detail: wrong.join('; ') });
      }
      if (t.refuseCards) return send(req, res, 422, { error: 'card_declined' });
      const token = `tok_${randomBytes(12).toString('hex')}`;
      tokens.set(token, { card: body.credential, binding: body.binding });
      return answer(req, res, SCHEMA.tokenizeResponse, { token }, 'POST /tokenize');
    }
    if (path === '/detokenize') {
      const wrong = problems(SCHEMA.detokenizeRequest, body);
      if (wrong.length) {
        violations.push(`POST /detokenize: ${wrong.join('; ')}`);
        return send(req, res, 400, { error: 'invalid_request', detail: wrong.join('; ') });
      }
      const held = tokens.get(body.token);
      // "The binding must match what was provided during tokenization."
      if (!held || !sameBinding(held.binding, body.binding))
        return send(req, res, 403, { error: 'binding_mismatch' });
      return answer(req, res, SCHEMA.detokenizeResponse, held.card, 'POST /detokenize');
    }
    send(req, res, 404, { error: 'not_found' });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'OPTIONS') {
        // The browser's preflight for a JSON POST from the pay page.
        const allowed = req.headers.origin === t.allowOrigin;
        res.writeHead(allowed ? 204 : 403, {
          ...(allowed
            ? {
                'access-control-allow-origin': t.allowOrigin,
                'access-control-allow-methods': 'POST',
                'access-control-allow-headers': 'content-type',
                vary: 'Origin',
              }
            : {}),
        });
        return res.end();
      }
      let body: unknown = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = null;
      }
      requests.push({ method: req.method ?? 'GET', path, origin: req.headers.origin, body });
      if (req.method !== 'POST' || size > MAX_BODY) return send(req, res, 400, { error: 'invalid_request' });
      handle(req, res, path, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  t.endpoint = `http://${host}:${port}`;
  t.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return t;
}

/** How a test (or the fake store) calls the tokenizer from Node, as the browser or the store would. */
export async function callTokenizer(
  endpoint: string,
  path: '/tokenize' | '/detokenize',
  body: unknown,
  origin?: string,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${endpoint}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}
