// The Node transport: one attempt over node:http / node:https through their global agents
// (keep-alive on Node >= 19; on Node 24 they honour NODE_USE_ENV_PROXY as fetch does). On Node,
// fetch's per-request AbortSignal handling (WeakRef, abort listener, FinalizationRegistry,
// listener counting) cost more than the rest of the client together; here a timeout or an
// abort ends the request with `destroy()`, which costs nothing until it is needed.
import type { AttemptInit } from './attempt.js';
import { concat, responseTooLarge } from './body-cap.js';
import { requestLabel } from './errors.js';
import { NodeAnswer } from './node-answer.js';
import {
  type NodeHttp,
  type NodeIncoming,
  type NodeReadable,
  type NodeRequest,
  nodeVersion,
} from './node-builtins.js';
import { decodersFor } from './node-decode.js';
import { NULL_BODY_STATUSES, type Settle } from './transport.js';

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

/**
 * One request in flight. It reports to `run` (the attempt, which settles once); `cancel` is how
 * the attempt's deadline or the caller's abort ends it. No redirect is followed: node:http
 * never does, so a 3xx comes back as the ApiError naming its Location, as with fetch's
 * `redirect: 'manual'`.
 */
export class NodeExchange {
  readonly #run: Settle;
  readonly #url: string;
  readonly #init: AttemptInit;
  readonly #request: NodeRequest;
  /** The body's streams: the response, then any decoders; destroyed together when cut short. */
  #streams: NodeReadable[] = [];
  #answer: NodeAnswer | undefined;
  #chunks: Uint8Array[] = [];
  #length = 0;
  #done = false;

  constructor(run: Settle, http: NodeHttp, url: string, init: AttemptInit) {
    this.#run = run;
    this.#url = url;
    this.#init = init;
    const body = outgoingBody(init.body);
    const request = http.request(url, { method: init.method, headers: outgoingHeaders(init, body) });
    this.#request = request;
    request.on('response', (response: NodeIncoming) => this.#receive(response));
    // Refused, reset (a pooled socket the server had closed while idle), DNS, TLS: the attempt
    // classifies it as a ConnectionError, which the retry rules then apply to.
    request.on('error', (error: Error) => this.#requestFailed(error));
    // A 101 the client never asked for: without a listener node closes the socket and emits
    // neither a response nor an error, so the call would wait out its timeout on every attempt
    // (3 × 60 s by default). Taken here, it fails at once, as fetch's "bad upgrade" does.
    request.on('upgrade', (_response: NodeIncoming, socket: NodeReadable) => {
      socket.destroy();
      this.#fail(badUpgrade());
    });
    request.end(body);
  }

  /** The deadline or the caller's abort came first: close the socket, read nothing more. */
  cancel(): void {
    this.#done = true;
    this.#destroy();
  }

  #receive(response: NodeIncoming): void {
    const answer = new NodeAnswer(response, this.#url);
    this.#answer = answer;
    this.#streams.push(response);
    // First, so a response cut short below (over the cap, refused codings) has its listener too.
    response.on('error', (error: Error) => this.#fail(error));
    const cap = this.#init.maxResponseBytes;
    const declared = response.headers['content-length'];
    if (declared !== undefined && Number(declared) > cap) {
      this.#tooLarge(`its Content-Length is ${declared}`);
      return;
    }
    let body: NodeReadable = response;
    const encoding = response.headers['content-encoding'];
    if (typeof encoding === 'string' && !NULL_BODY_STATUSES.has(answer.status)) {
      let decoders: ReturnType<typeof decodersFor>;
      try {
        decoders = decodersFor(encoding);
      } catch (error) {
        this.#fail(error);
        return;
      }
      for (const decoder of decoders) {
        body = body.pipe(decoder);
        this.#streams.push(decoder);
        decoder.on('error', (error: Error) => this.#fail(error));
      }
    }
    body.on('data', (chunk: Uint8Array) => this.#take(chunk));
    body.on('end', () => this.#finish());
    // A connection that drops mid-body: node ends the response without `complete`.
    response.on('close', () => {
      if (!response.complete) this.#fail(connectionLost());
    });
  }

  /**
   * The socket failed. Once the response's body has all arrived (a server that sent more bytes
   * than its Content-Length fails the parser only after), the answer is whole and ends as usual:
   * fetch too reads such a body up to its declared length and no further.
   */
  #requestFailed(error: Error): void {
    if (!this.#answer?.complete) this.#fail(error);
  }

  #take(chunk: Uint8Array): void {
    if (this.#done) return;
    this.#length += chunk.byteLength;
    if (this.#length > this.#init.maxResponseBytes) {
      this.#tooLarge('more than that arrived');
      return;
    }
    this.#chunks.push(chunk);
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    const answer = this.#answer as NodeAnswer;
    const bytes = concat(this.#chunks, this.#length);
    this.#chunks = [];
    // The same decoding as response.text(): UTF-8, a leading BOM dropped, bad bytes replaced.
    answer.read(bytes, utf8.decode(bytes));
    this.#run.succeed(answer);
  }

  /** Over the cap: unretried, and the connection is closed so nothing more is read. */
  #tooLarge(detail: string): void {
    const answer = this.#answer as NodeAnswer;
    const { maxResponseBytes } = this.#init;
    const where = requestLabel(this.#init.method, this.#url);
    this.#run.fail(
      responseTooLarge(answer, answer.header('service-request-id'), maxResponseBytes, where, detail),
    );
    this.cancel();
  }

  #fail(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#run.fail(error);
    this.#destroy();
  }

  #destroy(): void {
    this.#chunks = [];
    this.#request.destroy();
    for (const stream of this.#streams) stream.destroy();
  }
}

/** A ConnectionError's cause for a 101 answer, worded as fetch words it. */
function badUpgrade(): Error {
  return new Error('bad upgrade: the server switched protocols (101), which the client did not ask for');
}

/** What node reports when a response's connection closed before its body ended. */
function connectionLost(): Error {
  return Object.assign(new Error('the connection closed before the response body ended'), {
    code: 'ECONNRESET',
  });
}

/**
 * A bodiless call's headers as node takes them, built once per Headers: a retrieve sends the
 * core's base headers, which never change. A call with a body has its own Headers, and its
 * content type depends on the body, so it is converted each time.
 */
const converted = new WeakMap<Headers, Record<string, string>>();

/**
 * Every header the fetch transport sends, plus a User-Agent naming the client and Node's version
 * (as stripe-node sends one; fetch sends `node`, and browsers forbid setting it) unless the
 * caller set one. Not `Accept-Encoding`: svc never compresses (see node-decode.ts).
 */
function outgoingHeaders(init: AttemptInit, body: OutgoingBody): Record<string, string> {
  const cached = init.body === undefined ? converted.get(init.headers) : undefined;
  if (cached) return cached;
  const headers: Record<string, string> = {};
  for (const [name, value] of init.headers) headers[name] = value;
  headers['user-agent'] ??= `${headers['service-client'] ?? ''} node/${nodeVersion()}`.trim();
  const type = contentTypeOf(init.body);
  if (type !== undefined) headers['content-type'] ??= type;
  if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) {
    assertBodyFraming(headers, body);
  }
  if (
    headers.host !== undefined ||
    headers.connection !== undefined ||
    headers['keep-alive'] !== undefined ||
    headers.upgrade !== undefined ||
    headers.expect !== undefined
  ) {
    keepConnectionOurs(headers);
  }
  if (init.body === undefined) converted.set(init.headers, headers);
  return headers;
}

/** The Content-Type fetch sets for a body the core passed through without one. */
function contentTypeOf(body: AttemptInit['body']): string | undefined {
  if (typeof body === 'string') return 'text/plain;charset=UTF-8';
  if (body instanceof URLSearchParams) return 'application/x-www-form-urlencoded;charset=UTF-8';
  return undefined;
}

/**
 * A caller's Content-Length or Transfer-Encoding (per call or in defaultHeaders) is refused unless
 * it is the body's own length, before anything is sent, as fetch refuses them. node:http sends
 * them as given: a length shorter than the body (a string's `.length` for a non-ASCII body) left
 * the rest of the body on the keep-alive socket, read by the server as the start of the next
 * request, whoever makes it (a desync: a body holding a request smuggles it in); a longer one
 * took the next request's first bytes as this body.
 */
function assertBodyFraming(headers: Record<string, string>, body: OutgoingBody): void {
  if (headers['transfer-encoding'] !== undefined) {
    throw new TypeError('invalid transfer-encoding header: the client frames the body itself; leave it out');
  }
  const declared = headers['content-length'] as string;
  const length = typeof body === 'string' ? utf8Encoder.encode(body).byteLength : (body?.byteLength ?? 0);
  if (!/^\d+$/.test(declared) || Number(declared) !== length) {
    throw new TypeError(
      `invalid content-length header: ${declared}, but the body is ${length} bytes; leave it out, the client sets it`,
    );
  }
}

/**
 * The connection is the transport's, as on fetch: a caller's Upgrade, Expect or Keep-Alive is
 * refused with fetch's own words (node would send them, and an `Expect: 100-continue` or an
 * upgrade changes how the exchange on the pooled socket goes); a Connection other than
 * `close`/`keep-alive` and a Host are dropped, as Node 24's fetch drops them (Node 20's refuses
 * such a Connection): the Host is the URL's, and the pool decides whether a socket is kept.
 */
function keepConnectionOurs(headers: Record<string, string>): void {
  delete headers.host;
  const connection = headers.connection?.trim().toLowerCase();
  if (connection !== undefined && connection !== 'close' && connection !== 'keep-alive') {
    delete headers.connection;
  }
  if (headers['keep-alive'] !== undefined) throw new TypeError('invalid keep-alive header');
  if (headers.upgrade !== undefined) throw new TypeError('invalid upgrade header');
  if (headers.expect !== undefined) throw new TypeError('expect header not supported');
}

type OutgoingBody = string | Uint8Array | undefined;

/** The body's bytes; node sets Content-Length from them (and 0 for a POST or PUT without one). */
function outgoingBody(body: AttemptInit['body']): OutgoingBody {
  if (body === undefined || body === null || typeof body === 'string') return body ?? undefined;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  const view = body as ArrayBufferView;
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}
