import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  getSignatureHeader,
  SIGNATURE_HEADER,
  SIGNATURE_HEADER_LOWER,
  signPayload,
  signPayloadAsync,
  type VerifyOptions,
  verifySignature,
  verifySignatureAsync,
  type WebhookSecret,
  WebhookSignatureError,
  type WebhookSignatureErrorCode,
} from '../src/index';

const SECRET = 'whsec_test_secret_1';
const OTHER = 'whsec_test_secret_2';
const T = 1_767_603_600; // 2026-01-05T09:00:00Z
const AT_T: VerifyOptions = { now: new Date(T * 1000) };
const BODY =
  '{"id":"evt_1","type":"webhook.test","created_at":"2026-01-05T09:00:00.000Z","data":{"id":"test_1","message":"hi"}}';
// Non-ASCII on purpose: verification must work on the bytes as received.
const UTF8_BODY = '{"id":"evt_2","data":{"title":"Café crème ☕ 😀 Ünïcödé"}}';

/** The spec's algorithm written out independently of the library. */
const reference = (secret: string, t: number | string, body: string | Uint8Array) =>
  createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');

type Verify = (payload: unknown, header: unknown, secret: unknown, options?: VerifyOptions) => Promise<void>;
type Sign = (
  payload: unknown,
  secret: WebhookSecret,
  options?: { timestamp?: number | Date },
) => Promise<string>;

// Casts let the garbage-input cases through the types, as plain JavaScript callers would.
const impls: { name: string; verify: Verify; sign: Sign }[] = [
  {
    name: 'node:crypto (sync)',
    verify: async (p, h, s, o) => verifySignature(p as string, h as string, s as string, o),
    sign: async (p, s, o) => signPayload(p as string, s, o),
  },
  {
    name: 'Web Crypto (async)',
    verify: (p, h, s, o) => verifySignatureAsync(p as string, h as string, s as string, o),
    sign: (p, s, o) => signPayloadAsync(p as string, s, o),
  },
];

async function expectCode(promise: Promise<unknown>, code: WebhookSignatureErrorCode) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected a WebhookSignatureError(${code})`).toBeInstanceOf(WebhookSignatureError);
  expect(error).toMatchObject({ name: 'WebhookSignatureError', code });
}

describe.each(impls)('$name', ({ verify, sign }) => {
  describe('signing', () => {
    it('produces t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" keyed with the whole whsec_ secret>', async () => {
      const header = await sign(BODY, SECRET, { timestamp: T });
      expect(header).toBe(`t=${T},v1=${reference(SECRET, T, BODY)}`);
    });

    it('matches the known-answer vector printed in the README', async () => {
      expect(await sign('{"id":"evt_1"}', 'whsec_example', { timestamp: 1767603600 })).toBe(
        't=1767603600,v1=1df63119e2e9a880512948061b5b6c9a11465e91e69a7ffce5673c93cbe70ae5',
      );
    });

    it('accepts a Date timestamp and defaults to the current time', async () => {
      expect(await sign(BODY, SECRET, { timestamp: new Date(T * 1000 + 999) })).toMatch(
        new RegExp(`^t=${T},`),
      );
      const before = Math.floor(Date.now() / 1000);
      const t = Number(/^t=(\d+)/.exec(await sign(BODY, SECRET))?.[1]);
      expect(t).toBeGreaterThanOrEqual(before);
      expect(t).toBeLessThanOrEqual(before + 2);
    });

    it('emits one v1 per secret, as the server does while rotating', async () => {
      const header = await sign(BODY, [SECRET, OTHER], { timestamp: T });
      expect(header).toBe(`t=${T},v1=${reference(SECRET, T, BODY)},v1=${reference(OTHER, T, BODY)}`);
    });

    it('rejects a bad timestamp option as a programming error', async () => {
      await expect(sign(BODY, SECRET, { timestamp: 1.5 })).rejects.toBeInstanceOf(RangeError);
      await expect(sign(BODY, SECRET, { timestamp: -1 })).rejects.toBeInstanceOf(RangeError);
    });
  });

  describe('raw bytes', () => {
    it('verifies a string, a Buffer, a Uint8Array and an ArrayBuffer of the same body', async () => {
      const header = await sign(UTF8_BODY, SECRET, { timestamp: T });
      const buffer = Buffer.from(UTF8_BODY, 'utf8');
      const view = new Uint8Array(buffer);
      await verify(UTF8_BODY, header, SECRET, AT_T);
      await verify(buffer, header, SECRET, AT_T);
      await verify(view, header, SECRET, AT_T);
      await verify(
        view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength),
        header,
        SECRET,
        AT_T,
      );
    });

    it('signs the bytes, not a decoded string: invalid UTF-8 still verifies', async () => {
      const bytes = Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]);
      const header = `t=${T},v1=${reference(SECRET, T, bytes)}`;
      await verify(bytes, header, SECRET, AT_T);
      await verify(Buffer.from(bytes), header, SECRET, AT_T);
    });

    it('respects byteOffset of a view into a larger buffer (a pooled Buffer)', async () => {
      const header = await sign(BODY, SECRET, { timestamp: T });
      const pool = Buffer.from(`xxxx${BODY}yyyy`);
      await verify(pool.subarray(4, 4 + Buffer.byteLength(BODY)), header, SECRET, AT_T);
    });

    it('rejects a re-serialized body', async () => {
      const header = await sign(UTF8_BODY, SECRET, { timestamp: T });
      const reserialized = JSON.stringify(JSON.parse(UTF8_BODY), null, 2);
      await expectCode(verify(reserialized, header, SECRET, AT_T), 'signature_mismatch');
    });

    it('uses the header t as written to build the signed string', async () => {
      const header = `t=0${T},v1=${reference(SECRET, `0${T}`, BODY)}`;
      await verify(BODY, header, SECRET, AT_T);
    });
  });

  describe('signature', () => {
    it('rejects a wrong secret, a tampered body and a forged signature', async () => {
      const header = await sign(BODY, SECRET, { timestamp: T });
      await expectCode(verify(BODY, header, OTHER, AT_T), 'signature_mismatch');
      await expectCode(verify(`${BODY} `, header, SECRET, AT_T), 'signature_mismatch');
      await expectCode(verify(BODY, `t=${T},v1=${'0'.repeat(64)}`, SECRET, AT_T), 'signature_mismatch');
    });

    it('rejects a signature for another timestamp (t is part of the signed string)', async () => {
      const v1 = reference(SECRET, T, BODY);
      await expectCode(verify(BODY, `t=${T + 1},v1=${v1}`, SECRET, AT_T), 'signature_mismatch');
    });

    it('is not fooled by the secret without its whsec_ prefix', async () => {
      const header = `t=${T},v1=${reference(SECRET.slice('whsec_'.length), T, BODY)}`;
      await expectCode(verify(BODY, header, SECRET, AT_T), 'signature_mismatch');
    });

    it('accepts upper-case hex', async () => {
      await verify(BODY, `t=${T},v1=${reference(SECRET, T, BODY).toUpperCase()}`, SECRET, AT_T);
    });

    it('accepts any of several v1 entries (sender-side rotation)', async () => {
      const good = reference(SECRET, T, BODY);
      const bad = reference(OTHER, T, BODY);
      await verify(BODY, `t=${T},v1=${bad},v1=${good}`, SECRET, AT_T);
      await verify(BODY, `t=${T},v1=${good},v1=${bad}`, SECRET, AT_T);
    });

    it('accepts any of several secrets (receiver-side rotation)', async () => {
      const header = await sign(BODY, OTHER, { timestamp: T });
      await verify(BODY, header, [SECRET, OTHER], AT_T);
      await expectCode(verify(BODY, header, [SECRET], AT_T), 'signature_mismatch');
    });

    it('ignores unknown schemes, whitespace and empty entries', async () => {
      const v1 = reference(SECRET, T, BODY);
      await verify(BODY, ` v0=abc , t = ${T} ,, v2=${'f'.repeat(64)},\tv1= ${v1} ,`, SECRET, AT_T);
    });
  });

  describe('timestamp tolerance', () => {
    const at = (offsetSeconds: number, options: VerifyOptions = {}): VerifyOptions => ({
      ...options,
      now: new Date((T + offsetSeconds) * 1000),
    });

    it('accepts up to 300 seconds either way by default, inclusive', async () => {
      const header = await sign(BODY, SECRET, { timestamp: T });
      await verify(BODY, header, SECRET, at(300));
      await verify(BODY, header, SECRET, at(-300));
      await verify(BODY, header, SECRET, at(300.999));
    });

    it('rejects timestamps too old and too far in the future', async () => {
      const header = await sign(BODY, SECRET, { timestamp: T });
      await expectCode(verify(BODY, header, SECRET, at(301)), 'timestamp_out_of_tolerance');
      await expectCode(verify(BODY, header, SECRET, at(-301)), 'timestamp_out_of_tolerance');
      await expectCode(verify(BODY, header, SECRET, at(86_400)), 'timestamp_out_of_tolerance');
    });

    it('honours toleranceSeconds', async () => {
      const header = await sign(BODY, SECRET, { timestamp: T });
      await verify(BODY, header, SECRET, at(30, { toleranceSeconds: 30 }));
      await expectCode(
        verify(BODY, header, SECRET, at(31, { toleranceSeconds: 30 })),
        'timestamp_out_of_tolerance',
      );
      await expectCode(
        verify(BODY, header, SECRET, at(1, { toleranceSeconds: 0 })),
        'timestamp_out_of_tolerance',
      );
    });

    it('reads now from a function returning epoch ms or a Date, on every call', async () => {
      const header = await sign(BODY, SECRET, { timestamp: T });
      let ms = T * 1000;
      const options: VerifyOptions = { now: () => ms };
      await verify(BODY, header, SECRET, options);
      ms += 301_000;
      await expectCode(verify(BODY, header, SECRET, options), 'timestamp_out_of_tolerance');
      await verify(BODY, header, SECRET, { now: () => new Date(T * 1000) });
    });

    it('checks the signature first: a stale forgery is a mismatch, not a timestamp error', async () => {
      await expectCode(verify(BODY, `t=${T},v1=${'a'.repeat(64)}`, SECRET, at(10_000)), 'signature_mismatch');
    });

    it('throws RangeError for bad options, before looking at the signature', async () => {
      const header = await sign(BODY, SECRET, { timestamp: T });
      await expect(verify(BODY, header, SECRET, { toleranceSeconds: -1 })).rejects.toBeInstanceOf(RangeError);
      await expect(verify(BODY, header, SECRET, { toleranceSeconds: Number.NaN })).rejects.toBeInstanceOf(
        RangeError,
      );
      await expect(verify(BODY, header, SECRET, { now: new Date('nope') })).rejects.toBeInstanceOf(
        RangeError,
      );
      await expect(verify(BODY, 't=1,v1=00', SECRET, { now: () => Number.NaN })).rejects.toBeInstanceOf(
        WebhookSignatureError,
      );
    });
  });

  describe('garbage input never escapes as a TypeError', () => {
    const v1 = reference(SECRET, T, BODY);

    it.each<[string, unknown, WebhookSignatureErrorCode]>([
      ['undefined', undefined, 'missing_header'],
      ['null', null, 'missing_header'],
      ['empty string', '', 'missing_header'],
      ['blank string', '   ', 'missing_header'],
      ['an array', [`t=${T},v1=${v1}`], 'malformed_header'],
      ['a number', 42, 'malformed_header'],
      ['an object', { t: T }, 'malformed_header'],
      ['random text', 'garbage', 'malformed_header'],
      ['only commas', ', , ,', 'malformed_header'],
      ['no t', `v1=${v1}`, 'malformed_header'],
      ['no v1', `t=${T}`, 'malformed_header'],
      ['only v0', `t=${T},v0=${v1}`, 'malformed_header'],
      ['non-numeric t', `t=abc,v1=${v1}`, 'malformed_header'],
      ['empty t', `t=,v1=${v1}`, 'malformed_header'],
      ['negative t', `t=-${T},v1=${v1}`, 'malformed_header'],
      ['fractional t', `t=${T}.5,v1=${v1}`, 'malformed_header'],
      ['exponent t', `t=1e9,v1=${v1}`, 'malformed_header'],
      ['huge t', `t=${'9'.repeat(30)},v1=${v1}`, 'malformed_header'],
      ['two t entries', `t=${T},t=${T + 1000},v1=${v1}`, 'malformed_header'],
      ['odd-length hex', `t=${T},v1=abc`, 'malformed_header'],
      ['short hex', `t=${T},v1=abcd`, 'malformed_header'],
      ['non-hex v1', `t=${T},v1=${'z'.repeat(64)}`, 'malformed_header'],
      ['empty v1', `t=${T},v1=`, 'malformed_header'],
    ])('header: %s', async (_label, header, code) => {
      await expectCode(verify(BODY, header, SECRET, AT_T), code);
    });

    it.each<[string, unknown]>([
      ['undefined', undefined],
      ['null', null],
      ['a number', 42],
      ['a parsed JSON object', JSON.parse(BODY)],
      ['an array', [1, 2]],
    ])('payload: %s', async (_label, payload) => {
      await expectCode(verify(payload, `t=${T},v1=${v1}`, SECRET, AT_T), 'invalid_payload');
    });

    it.each<[string, unknown]>([
      ['undefined', undefined],
      ['empty string', ''],
      ['a number', 42],
      ['an empty array', []],
      ['an array with an empty secret', [SECRET, '']],
      ['an array with a non-string', [SECRET, 42]],
    ])('secret: %s', async (_label, secret) => {
      await expectCode(verify(BODY, `t=${T},v1=${v1}`, secret, AT_T), 'invalid_secret');
    });
  });
});

describe('the sync and async paths agree', () => {
  it('produce identical headers and verify each other', async () => {
    const a = signPayload(UTF8_BODY, [SECRET, OTHER], { timestamp: T });
    const b = await signPayloadAsync(UTF8_BODY, [SECRET, OTHER], { timestamp: T });
    expect(a).toBe(b);
    verifySignature(Buffer.from(UTF8_BODY), b, OTHER, AT_T);
    await verifySignatureAsync(new TextEncoder().encode(UTF8_BODY), a, OTHER, AT_T);
  });

  it('verifySignature throws synchronously', () => {
    expect(() => verifySignature(BODY, undefined, SECRET)).toThrow(WebhookSignatureError);
  });

  it('error messages never contain the secret', async () => {
    const header = signPayload(BODY, SECRET, { timestamp: T });
    for (const run of [
      () => verifySignature(BODY, header, OTHER, AT_T),
      () => verifySignature(BODY, header, SECRET, { now: new Date(0) }),
      () => verifySignature(BODY, 't=x', SECRET),
    ]) {
      expect(run).toThrow(WebhookSignatureError);
      try {
        run();
      } catch (e) {
        expect(String((e as Error).message)).not.toContain('secret_1');
      }
    }
  });
});

describe('getSignatureHeader', () => {
  const value = `t=${T},v1=${'a'.repeat(64)}`;

  it('exports the header name in both forms', () => {
    expect(SIGNATURE_HEADER).toBe('Service-Signature');
    expect(SIGNATURE_HEADER_LOWER).toBe('service-signature');
  });

  it('reads Fetch Headers case-insensitively', () => {
    expect(getSignatureHeader(new Headers({ 'SERVICE-SIGNATURE': value }))).toBe(value);
    expect(getSignatureHeader(new Headers())).toBeUndefined();
  });

  it("reads Node's req.headers and plain objects of any key case", () => {
    expect(getSignatureHeader({ 'service-signature': value, host: 'x' })).toBe(value);
    expect(getSignatureHeader({ 'Service-Signature': value })).toBe(value);
    expect(getSignatureHeader({ host: 'x' })).toBeUndefined();
  });

  it('joins repeated values like Node, which verification then rejects', () => {
    const joined = getSignatureHeader({ 'service-signature': [value, value] });
    expect(joined).toBe(`${value}, ${value}`);
    expect(() => verifySignature(BODY, joined, SECRET, AT_T)).toThrow(
      expect.objectContaining({ code: 'malformed_header' }),
    );
  });

  it('returns undefined for garbage', () => {
    expect(getSignatureHeader(undefined)).toBeUndefined();
    expect(getSignatureHeader(null)).toBeUndefined();
    expect(getSignatureHeader('x' as unknown as Headers)).toBeUndefined();
    expect(getSignatureHeader({ 'service-signature': 42 })).toBeUndefined();
    expect(getSignatureHeader({ 'service-signature': [value, 42] })).toBeUndefined();
  });
});

describe('WebhookSignatureError', () => {
  it('is an Error with a code, recognised across copies of the class', () => {
    const error = new WebhookSignatureError('signature_mismatch', 'x');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('WebhookSignatureError');
    expect(error.code).toBe('signature_mismatch');
    expect(new Error('x')).not.toBeInstanceOf(WebhookSignatureError);
    expect(null).not.toBeInstanceOf(WebhookSignatureError);
  });
});
