import { WebhookSignatureError } from './errors';

export const SIGNATURE_HEADER = 'Service-Signature';
/** The key under which Node's `req.headers` holds the signature (Node lower-cases header names). */
export const SIGNATURE_HEADER_LOWER = 'service-signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The raw request body exactly as received. A Node `Buffer` is a `Uint8Array`. */
export type WebhookPayload = string | Uint8Array | ArrayBuffer;

/** One endpoint secret (`whsec_...`), or several while rotating: any of them may match. */
export type WebhookSecret = string | readonly string[];

export interface VerifyOptions {
  /** Largest accepted distance, in seconds, between the signed timestamp and now, in either direction. */
  toleranceSeconds?: number;
  /**
   * The current time: a `Date`, or a function returning a `Date` or epoch milliseconds (like
   * `Date.now`). A function is read on every call, so one options object can follow an injected clock.
   */
  now?: Date | (() => Date | number);
}

export interface SignOptions {
  /** Unix seconds, or a `Date`. Defaults to the current time. */
  timestamp?: number | Date;
}

/** Anything that carries request headers: Fetch `Headers`, Node's `req.headers`, or a plain object. */
export type HeadersLike = { get(name: string): string | null } | Record<string, unknown>;

/**
 * Reads `Service-Signature` from Fetch `Headers`, Node's `req.headers`, or a plain object of any key
 * case. Repeated values are joined with `, ` as Node does, which verification then rejects as
 * ambiguous.
 */
export function getSignatureHeader(headers: HeadersLike | null | undefined): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const value: unknown = get.call(headers, SIGNATURE_HEADER);
    return typeof value === 'string' ? value : undefined;
  }
  const record = headers as Record<string, unknown>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === SIGNATURE_HEADER_LOWER);
  const value = key === undefined ? undefined : record[key];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ');
  return undefined;
}

export interface ParsedHeader {
  timestamp: number;
  /** `t` as written in the header: the signed string starts with this text, not with a re-formatted number. */
  timestampText: string;
  signatures: Uint8Array<ArrayBuffer>[];
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

export function parseSignatureHeader(header: unknown): ParsedHeader {
  if (header === undefined || header === null || (typeof header === 'string' && header.trim() === '')) {
    throw new WebhookSignatureError('missing_header', `The ${SIGNATURE_HEADER} header is missing.`);
  }
  if (typeof header !== 'string') {
    throw new WebhookSignatureError(
      'malformed_header',
      `The ${SIGNATURE_HEADER} header must be one string; got ${describe(header)}. Use getSignatureHeader().`,
    );
  }
  let timestampText: string | undefined;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const entry of header.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    if (eq === -1) throw malformed(`entry "${clip(entry)}" has no "="`);
    const key = entry.slice(0, eq).trim();
    const value = entry.slice(eq + 1).trim();
    if (key === 't') {
      // Two timestamps would let a proxy or an attacker choose which one we check.
      if (timestampText !== undefined) throw malformed('more than one t= entry');
      if (!/^\d{1,15}$/.test(value)) throw malformed(`t must be unix seconds, got "${clip(value)}"`);
      timestampText = value;
    } else if (key === 'v1') {
      if (!HEX_SHA256.test(value)) throw malformed('v1 must be 64 hex characters (HMAC-SHA256)');
      signatures.push(fromHex(value));
    }
    // Other schemes (v0, future ones) are skipped so the server can add them without breaking receivers.
  }
  if (timestampText === undefined) throw malformed('no t= entry');
  if (signatures.length === 0) throw malformed('no v1= signature');
  return { timestamp: Number(timestampText), timestampText, signatures };
}

export function toPayloadBytes(payload: unknown): Uint8Array {
  if (typeof payload === 'string') return utf8(payload);
  // isView rather than instanceof: a Buffer or Uint8Array from another realm (vm, iframe) is still bytes.
  if (ArrayBuffer.isView(payload)) {
    return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  }
  if (payload instanceof ArrayBuffer) return new Uint8Array(payload);
  throw new WebhookSignatureError(
    'invalid_payload',
    `The payload must be the raw request body (string, Buffer/Uint8Array or ArrayBuffer); got ${describe(payload)}. ` +
      "A parsed body cannot be verified: with Express use express.raw({ type: 'application/json' }).",
  );
}

export function toSecrets(secret: unknown): string[] {
  const list = Array.isArray(secret) ? secret : [secret];
  if (list.length === 0 || !list.every((s): s is string => typeof s === 'string' && s !== '')) {
    throw new WebhookSignatureError(
      'invalid_secret',
      'The secret must be a non-empty string (whsec_...) or a non-empty array of them. Is the environment variable set?',
    );
  }
  return list;
}

/** The signed bytes: `${t}.` followed by the body exactly as received, never re-encoded. */
export function signedContent(timestamp: number | string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = utf8(`${timestamp}.`);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

export function signTimestamp(options: SignOptions | undefined): number {
  const t = options?.timestamp;
  if (t === undefined) return Math.floor(Date.now() / 1000);
  const seconds = t instanceof Date ? Math.floor(t.getTime() / 1000) : t;
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new RangeError('timestamp must be a Date or a non-negative integer of unix seconds.');
  }
  return seconds;
}

export function formatHeader(timestamp: number, signatures: Uint8Array[]): string {
  return [`t=${timestamp}`, ...signatures.map((s) => `v1=${toHex(s)}`)].join(',');
}

export interface TimeWindow {
  nowSeconds: number;
  tolerance: number;
}

/**
 * Resolved before the signature check so a bad option fails on every well-formed request, not only on
 * authentic ones. Bad options are a bug in the caller's code rather than a bad request, hence RangeError.
 */
export function timeWindow(options: VerifyOptions | undefined): TimeWindow {
  const tolerance = options?.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || Number.isNaN(tolerance) || tolerance < 0) {
    throw new RangeError('toleranceSeconds must be a non-negative number.');
  }
  const now = options?.now;
  const value = typeof now === 'function' ? now() : (now ?? Date.now());
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) {
    throw new RangeError('now must be a valid Date or a function returning a Date or epoch milliseconds.');
  }
  return { nowSeconds: Math.floor(ms / 1000), tolerance };
}

/** Runs after the signature matched, so this error means "authentic but stale", never "forged". */
export function checkTimestamp(timestamp: number, { nowSeconds, tolerance }: TimeWindow): void {
  const skew = nowSeconds - timestamp;
  if (Math.abs(skew) > tolerance) {
    throw new WebhookSignatureError(
      'timestamp_out_of_tolerance',
      `The signature is valid but its timestamp is ${Math.abs(skew)}s in the ${skew > 0 ? 'past' : 'future'} ` +
        `(tolerance ${tolerance}s): a replay, a delayed delivery, or a wrong clock.`,
    );
  }
}

export function signatureMismatch(): WebhookSignatureError {
  return new WebhookSignatureError(
    'signature_mismatch',
    'No v1 signature matches. Check that the payload is the raw body as received (not re-serialized JSON) ' +
      "and that the secret is this endpoint's whsec_ secret (sandbox and live differ).",
  );
}

const encoder = new TextEncoder();
export const utf8 = (s: string): Uint8Array<ArrayBuffer> => encoder.encode(s);

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const malformed = (why: string) =>
  new WebhookSignatureError('malformed_header', `The ${SIGNATURE_HEADER} header is malformed: ${why}.`);

const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}...` : s);

const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);
