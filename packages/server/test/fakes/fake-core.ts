import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';

/**
 * The shared machinery of the platform fakes that follow reference documentation rather than an
 * OpenAPI document (LinkedIn, Instagram, Threads): a loopback server, a request log, recorded
 * violations, scripted failures, and issued tokens. Each fake supplies its routes; a route first
 * checks the request (auth, headers, query, body) and only then takes effect, so a scripted failure
 * or hang happens where the real platform's would.
 */

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A redirect (the consent page saying yes). */
  location?: string;
}

export type Behaviour =
  | { kind: 'status'; status: 429 | 500 | 503; headers?: Record<string, string> }
  /** No answer. With `afterAccept`, the request takes effect first (the post IS stored). */
  | { kind: 'hang'; afterAccept?: boolean };

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  text: string;
  bytes: Buffer;
  /** The bearer token, when one was sent. */
  bearer: string | undefined;
}

/** What a route does once its request passed the checks: its answer, and the route name for scripting. */
export interface Matched {
  /** `METHOD /pattern`, e.g. `POST /rest/posts`, used by `failNext`. */
  route: string;
  /** Auth, headers and body against the documented contract; an answer stops the request here. */
  check?: () => Answer | null;
  effect: () => Answer;
}

export interface FakeCore {
  url: string;
  requests: string[];
  violations: string[];
  /** The next request to `route` behaves like this; with `after`, that many are answered normally first. */
  failNext(route: string, b: Behaviour, opts?: { after?: number }): void;
  close(): Promise<void>;
}

export interface FakeSpec {
  /** The platform's error body for a status (a scripted 429/5xx, or an auth failure). */
  error(status: number, message: string): unknown;
  /** Routes a request, or answers it at once (a redirect, an unknown path). */
  route(req: FakeRequest, core: { violate: (detail: string, status?: number) => Answer }): Matched | Answer;
}

/** Opaque, unguessable-looking ids for codes and tokens. */
export function opaqueIds() {
  let n = 0;
  return (prefix: string) =>
    `${prefix}-${++n}-${createHash('sha256').update(`${prefix}${n}`).digest('hex').slice(0, 16)}`;
}

/**
 * Validates `value` with a zod schema written from the platform's reference page; the problem
 * text names the field. Returns null when it fits.
 */
export function problemOf(schema: z.ZodType, value: unknown, what: string): string | null {
  const r = schema.safeParse(value);
  if (r.success) return null;
  const issues = r.error.issues
    .slice(0, 6)
    .map((i) => `${i.path.join('.') || '/'}: ${i.message}`)
    .join('; ');
  return `${what}: ${issues}`;
}

export function formOf(req: FakeRequest): URLSearchParams | null {
  return String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')
    ? new URLSearchParams(req.text)
    : null;
}

export function jsonOf(req: FakeRequest): unknown {
  if (!String(req.headers['content-type']).startsWith('application/json')) return undefined;
  try {
    return JSON.parse(req.text);
  } catch {
    return undefined;
  }
}

export async function startFake(
  spec: FakeSpec,
  answerCheck?: (route: string, a: Answer) => string | null,
): Promise<FakeCore> {
  const requests: string[] = [];
  const violations: string[] = [];
  const pending: { route: string; b: Behaviour; after: number }[] = [];
  const hanging = new Set<ServerResponse>();
  let base = '';

  const violate = (detail: string, status = 400): Answer => {
    violations.push(detail);
    return { status, body: spec.error(status, detail) };
  };

  const dispatch = async (req: IncomingMessage, res: ServerResponse): Promise<Answer | null> => {
    const url = new URL(req.url ?? '/', base);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const bytes = Buffer.concat(chunks);
    requests.push(`${req.method} ${url.pathname}`);
    const fr: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      text: bytes.toString('utf8'),
      bytes,
      bearer: /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1],
    };
    const m = spec.route(fr, { violate });
    if (!('effect' in m)) return m;
    const refused = m.check?.();
    if (refused) return refused;
    const entry = pending.find((p) => p.route === m.route);
    let b: Behaviour | undefined;
    if (entry && entry.after > 0) entry.after--;
    else if (entry) {
      pending.splice(pending.indexOf(entry), 1);
      b = entry.b;
    }
    if (b?.kind === 'status') {
      const message = b.status === 429 ? 'Too many requests' : 'Service unavailable';
      return { status: b.status, body: spec.error(b.status, message), headers: b.headers };
    }
    if (b?.kind === 'hang') {
      if (b.afterAccept) m.effect();
      hanging.add(res);
      return null;
    }
    const answer = m.effect();
    const wrong = answerCheck?.(m.route, answer);
    if (wrong) violations.push(`the fake’s own answer to ${m.route} breaks the documented shape: ${wrong}`);
    return answer;
  };

  const server = createServer((req, res) => {
    dispatch(req, res)
      .then((answer) => {
        if (!answer) return;
        if (answer.location) {
          res.writeHead(302, { location: answer.location }).end();
          return;
        }
        const hasBody = answer.body !== undefined;
        res
          .writeHead(answer.status, {
            ...(hasBody ? { 'content-type': 'application/json' } : {}),
            ...answer.headers,
          })
          .end(hasBody ? JSON.stringify(answer.body) : undefined);
      })
      .catch((err: unknown) => {
        violations.push(`fake failed: ${(err as Error).message}`);
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    violations,
    failNext: (route, b, o) => pending.push({ route, b, after: o?.after ?? 0 }),
    close: () =>
      new Promise((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The consent page saying yes: a redirect to the callback with code and state. */
export function consent(redirectUri: string, state: string, code: string): Answer {
  const to = new URL(redirectUri);
  to.searchParams.set('code', code);
  to.searchParams.set('state', state);
  return { status: 302, location: to.toString() };
}
