import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeChallengeS256, createPkcePair } from '../../src/content/publishers/pkce.js';
import { type PlatformProvider, ProviderError } from '../../src/content/publishers/provider.js';
import { createXProvider, X_SCOPES } from '../../src/content/publishers/x/index.js';
import { FAIL_PROCESSING_MARK, startXFake, type XFake } from '../fakes/x-fake.js';

const REDIRECT = 'http://127.0.0.1:4000/oauth/x/callback';
// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

let fake: XFake;
let x: PlatformProvider;
/** The same app with a short timeout, for the tests where X gives no answer. */
let hasty: PlatformProvider;
const NOW = new Date('2026-11-23T12:00:00Z');
/** The provider's waits (ms), on a clock that moves only by them: no test sleeps. */
let waits: number[];
let waitedMs: number;
const wait = async (ms: number) => {
  waits.push(ms);
  waitedMs += ms;
};

beforeEach(async () => {
  waits = [];
  waitedMs = 0;
  fake = await startXFake({ clientSecret: 'shh', now: () => NOW.getTime() + waitedMs });
  x = createXProvider({
    apiUrl: fake.url,
    authUrl: fake.authUrl,
    clientId: fake.clientId,
    clientSecret: 'shh',
    now: () => NOW,
    wait,
  });
  hasty = createXProvider({
    apiUrl: fake.url,
    clientId: fake.clientId,
    clientSecret: 'shh',
    timeoutMs: 1000,
    now: () => NOW,
  });
});
afterEach(async () => {
  await fake.close();
});

/** The whole consent: authorise URL → the fake's redirect (the person said yes) → code. */
async function authorize(state = 'st-1') {
  const pkce = createPkcePair();
  const url = x.authorizeUrl({ state, codeChallenge: pkce.challenge, redirectUri: REDIRECT });
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location') as string);
  return { pkce, back, code: back.searchParams.get('code') as string };
}

async function connect() {
  const { pkce, code } = await authorize();
  return x.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri: REDIRECT });
}

async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('X provider: OAuth 2.0 with PKCE', () => {
  it('builds an authorise URL with state, the S256 challenge, the scopes and the callback', () => {
    const url = new URL(
      x.authorizeUrl({
        state: 'abc',
        codeChallenge: codeChallengeS256('v'.repeat(43)),
        redirectUri: REDIRECT,
      }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(fake.authUrl);
    const q = url.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe(fake.clientId);
    expect(q.get('state')).toBe('abc');
    expect(q.get('redirect_uri')).toBe(REDIRECT);
    expect(q.get('code_challenge')).toBe(codeChallengeS256('v'.repeat(43)));
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('scope')).toBe('tweet.read tweet.write users.read offline.access media.write');
    expect(X_SCOPES).toContain('offline.access');
  });

  it('keeps a query the configured authorise URL already has', () => {
    const p = createXProvider({ clientId: 'c', authUrl: `${fake.authUrl}?prompt=consent` });
    const q = new URL(p.authorizeUrl({ state: 's', codeChallenge: 'c', redirectUri: REDIRECT })).searchParams;
    expect(q.get('prompt')).toBe('consent');
    expect(q.get('state')).toBe('s');
  });

  it('the default authorise URL is X’s', () => {
    const real = createXProvider({ clientId: 'c' });
    expect(real.authorizeUrl({ state: 's', codeChallenge: 'c', redirectUri: REDIRECT })).toMatch(
      /^https:\/\/x\.com\/i\/oauth2\/authorize\?/,
    );
  });

  it('PKCE S256 matches RFC 7636’s worked example', () => {
    // RFC 7636 Appendix B.
    expect(codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('exchanges a code with the right verifier for tokens, scopes and expiry', async () => {
    const { back } = await authorize('state-42');
    expect(back.searchParams.get('state')).toBe('state-42');
    const tokens = await connect();
    expect(tokens.accessToken).toBeTruthy();
    expect(tokens.refreshToken).toBeTruthy();
    expect(tokens.expiresAt?.toISOString()).toBe(new Date(NOW.getTime() + 7200_000).toISOString());
    expect(tokens.scopes).toEqual([...X_SCOPES]);
    expect(fake.violations).toEqual([]);
  });

  it('refuses a code exchanged with the wrong verifier, and the code is then spent', async () => {
    const { pkce, code } = await authorize();
    const wrong = createPkcePair().verifier;
    const err = await rejection(x.exchangeCode({ code, codeVerifier: wrong, redirectUri: REDIRECT }));
    expect(err.kind).toBe('rejected');
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/code_verifier/);
    const again = await rejection(
      x.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri: REDIRECT }),
    );
    expect(again.kind).toBe('rejected');
    expect(fake.violations).toEqual([]);
  });

  it('refresh rotates: new tokens work, the old refresh token does not', async () => {
    const first = await connect();
    const second = await x.refresh(first.refreshToken as string);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    const reused = await rejection(x.refresh(first.refreshToken as string));
    expect(reused.kind).toBe('rejected');
    const posted = await x.publish({ accessToken: second.accessToken, parts: ['After a refresh.'] });
    expect(fake.tweets.get(posted.externalId)?.text).toBe('After a refresh.');
    expect(fake.violations).toEqual([]);
  });

  it('a wrong client secret is refused at the token endpoint (Basic auth)', async () => {
    const { pkce, code } = await authorize();
    const other = createXProvider({ apiUrl: fake.url, clientId: fake.clientId, clientSecret: 'nope' });
    const err = await rejection(
      other.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri: REDIRECT }),
    );
    expect(err.kind).toBe('rejected');
    expect(err.status).toBe(401);
  });
});

describe('X provider: publishing', () => {
  it('publishes a single post and returns its id and permalink', async () => {
    const { accessToken } = await connect();
    const res = await x.publish({ accessToken, parts: ['Monday notes, twelve minutes.'] });
    expect(res.externalIds).toEqual([res.externalId]);
    expect(res.permalink).toBe(`https://x.com/fieldnote/status/${res.externalId}`);
    expect(fake.tweets.get(res.externalId)).toMatchObject({
      text: 'Monday notes, twelve minutes.',
      replyTo: null,
    });
    expect(fake.requests).toContain('GET /2/users/me');
    expect(fake.violations).toEqual([]);
  });

  it('uses a given username instead of looking it up', async () => {
    const { accessToken } = await connect();
    const res = await x.publish({ accessToken, parts: ['Hi'], username: 'someone' });
    expect(res.permalink).toBe(`https://x.com/someone/status/${res.externalId}`);
    expect(fake.requests).not.toContain('GET /2/users/me');
  });

  it('publishes a 3-part thread, each part a reply to the one before, in order', async () => {
    const { accessToken } = await connect();
    const res = await x.publish({
      accessToken,
      parts: ['One: the hook.', 'Two: the point.', 'Three: the ask.'],
    });
    expect(res.externalIds).toHaveLength(3);
    const [a, b, c] = res.externalIds.map((id) => fake.tweets.get(id));
    expect(a).toMatchObject({ text: 'One: the hook.', replyTo: null });
    expect(b).toMatchObject({ text: 'Two: the point.', replyTo: a?.id });
    expect(c).toMatchObject({ text: 'Three: the ask.', replyTo: b?.id });
    expect(res.externalId).toBe(a?.id);
    expect(fake.requests.filter((r) => r === 'POST /2/tweets')).toHaveLength(3);
    expect(fake.violations).toEqual([]);
  });

  it('uploads an image in one request (POST /2/media/upload) and attaches it to the first post', async () => {
    const { accessToken } = await connect();
    const res = await x.publish({
      accessToken,
      parts: ['With a picture.', 'And a reply.'],
      media: [{ mimeType: 'image/png', data: PNG }],
      username: 'fieldnote',
    });
    expect(fake.requests.filter((r) => r.includes('/media/'))).toEqual(['POST /2/media/upload']);
    const [first, second] = res.externalIds.map((id) => fake.tweets.get(id));
    expect(first?.mediaIds).toHaveLength(1);
    expect(fake.media.get(first?.mediaIds[0] as string)).toEqual({
      mediaType: 'image/png',
      bytes: PNG.length,
      category: 'tweet_image',
      state: 'succeeded',
    });
    expect(second?.mediaIds).toEqual([]);
    // The upload was finished before any post went out.
    expect(fake.requests.indexOf('POST /2/media/upload')).toBeLessThan(
      fake.requests.indexOf('POST /2/tweets'),
    );
    expect(fake.violations).toEqual([]);
  });

  it('uploads a GIF and an image over 5 MB chunked (initialize, append per MiB, finalize)', async () => {
    const { accessToken } = await connect();
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(64)]);
    // Over the simple upload's 5 MB: the fake refuses it there as a violation.
    const large = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 + 1 - PNG.length)]);
    const res = await x.publish({
      accessToken,
      parts: ['Two that do not fit the one request.'],
      media: [
        { mimeType: 'image/gif', data: gif },
        { mimeType: 'image/png', data: large },
      ],
      username: 'fieldnote',
    });
    const upload = fake.requests.filter((r) => r.includes('/media/'));
    const chunked = (appends: number) => [
      'POST /2/media/upload/initialize',
      ...Array<string>(appends).fill('POST /2/media/upload/:id/append'),
      'POST /2/media/upload/:id/finalize',
    ];
    const status = ['GET /2/media/upload', 'GET /2/media/upload'];
    expect(upload.map((r) => r.replace(/\/\d{5,}\//, '/:id/'))).toEqual([
      ...chunked(1),
      ...status,
      ...chunked(6),
    ]);
    const ids = fake.tweets.get(res.externalId)?.mediaIds ?? [];
    expect(ids.map((id) => fake.media.get(id))).toEqual([
      { mediaType: 'image/gif', bytes: gif.length, category: 'tweet_gif', state: 'succeeded' },
      { mediaType: 'image/png', bytes: large.length, category: 'tweet_image', state: 'succeeded' },
    ]);
    expect(fake.violations).toEqual([]);
  });

  it('a GIF goes as tweet_gif and is posted only once STATUS says succeeded, after X’s check_after_secs', async () => {
    const { accessToken } = await connect();
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(64)]);
    const res = await x.publish({
      accessToken,
      parts: ['It moves.'],
      media: [{ mimeType: 'image/gif', data: gif }],
      username: 'fieldnote',
    });
    const calls = fake.requests.map((r) => r.replace(/\/\d{5,}\//, '/:id/'));
    expect(calls.slice(-6)).toEqual([
      'POST /2/media/upload/initialize',
      'POST /2/media/upload/:id/append',
      'POST /2/media/upload/:id/finalize',
      'GET /2/media/upload', // in_progress
      'GET /2/media/upload', // succeeded
      'POST /2/tweets',
    ]);
    // Each pause is what X asked for: 1 s after finalize (pending), 2 s after in_progress.
    expect(waits).toEqual([1000, 2000]);
    const [id] = fake.tweets.get(res.externalId)?.mediaIds ?? [];
    expect(fake.media.get(id as string)).toEqual({
      mediaType: 'image/gif',
      bytes: gif.length,
      category: 'tweet_gif',
      state: 'succeeded',
    });
    expect(fake.violations).toEqual([]);
  });

  it('a GIF X fails to process is a clear refusal, and nothing is posted', async () => {
    const { accessToken } = await connect();
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from(FAIL_PROCESSING_MARK)]);
    const err = await rejection(
      x.publish({
        accessToken,
        parts: ['Broken.'],
        media: [{ mimeType: 'image/gif', data: gif }],
        username: 'u',
      }),
    );
    expect(err.kind).toBe('rejected');
    expect(err.message).toMatch(
      /^X could not process the GIF \(media \d+\)\. Nothing was posted\. Attach another GIF/,
    );
    expect(fake.requests.filter((r) => r === 'GET /2/media/upload')).toHaveLength(2);
    expect(fake.requests).not.toContain('POST /2/tweets');
    expect(fake.tweets.size).toBe(0);
    expect(fake.violations).toEqual([]);
  });

  it('gives up on a GIF still processing after the longest wait: retryable, nothing posted', async () => {
    const { accessToken } = await connect();
    const patient = createXProvider({
      apiUrl: fake.url,
      clientId: fake.clientId,
      clientSecret: 'shh',
      now: () => NOW,
      wait,
      processingWaitMs: 2500,
    });
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(64)]);
    const err = await rejection(
      patient.publish({
        accessToken,
        parts: ['Slow.'],
        media: [{ mimeType: 'image/gif', data: gif }],
        username: 'u',
      }),
    );
    // 1 s waited; the next pause (2 s) would pass 2.5 s, so it stops without waiting it.
    expect(waits).toEqual([1000]);
    expect(err.kind).toBe('unavailable');
    expect(err.message).toMatch(
      /^X was still processing the GIF \(media \d+, 50% done\) after 1 s, and svc waits at most 2\.5 s for a post's media\. Nothing was posted/,
    );
    expect(fake.requests).not.toContain('POST /2/tweets');
    expect(fake.violations).toEqual([]);
  });

  it('refuses a GIF over X’s 15 MB before any call', async () => {
    const { accessToken } = await connect();
    const before = fake.requests.length;
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(15 * 1024 * 1024)]);
    const err = await rejection(
      x.publish({
        accessToken,
        parts: ['Huge.'],
        media: [{ mimeType: 'image/gif', data: gif }],
        username: 'u',
      }),
    );
    expect(err.kind).toBe('invalid');
    expect(err.message).toBe(`The GIF has ${gif.length} bytes; X takes GIFs up to 15 MB.`);
    expect(fake.requests.length).toBe(before);
  });

  it('refuses what X would refuse before calling it: 281 characters, 5 images, a PDF', async () => {
    const { accessToken } = await connect();
    const before = fake.requests.length;
    const long = await rejection(x.publish({ accessToken, parts: ['a'.repeat(281)] }));
    expect(long.kind).toBe('invalid');
    const image = { mimeType: 'image/png', data: PNG };
    const many = await rejection(x.publish({ accessToken, parts: ['x'], media: Array(5).fill(image) }));
    expect(many.kind).toBe('invalid');
    const pdf = await rejection(
      x.publish({ accessToken, parts: ['x'], media: [{ mimeType: 'application/pdf', data: PNG }] }),
    );
    expect(pdf.kind).toBe('invalid');
    expect(fake.requests.length).toBe(before);
    // 280 emoji are 280 characters, not 560 UTF-16 units.
    const emoji = await x.publish({ accessToken, parts: ['🙂'.repeat(280)], username: 'u' });
    expect(fake.tweets.get(emoji.externalId)).toBeTruthy();
    expect(fake.violations).toEqual([]);
  });
});

describe('X provider: status and metrics', () => {
  it('refuses an id that is no X post id before calling X', async () => {
    const { accessToken } = await connect();
    const before = fake.requests.length;
    for (const externalId of ['../users/me', '1/../2', '12%2F3', '']) {
      expect((await rejection(x.status({ accessToken, externalId }))).kind).toBe('invalid');
      expect((await rejection(x.metrics({ accessToken, externalId }))).kind).toBe('invalid');
    }
    expect(fake.requests.length).toBe(before);
  });

  it('reads a post’s status, and says when it is gone', async () => {
    const { accessToken } = await connect();
    const { externalId } = await x.publish({ accessToken, parts: ['Still there?'], username: 'u' });
    expect(await x.status({ accessToken, externalId })).toEqual({
      externalId,
      exists: true,
      text: 'Still there?',
    });
    fake.tweets.delete(externalId);
    expect(await x.status({ accessToken, externalId })).toMatchObject({ exists: false, text: null });
    expect(fake.violations).toEqual([]);
  });

  it('maps public and non-public metrics to impressions, likes, comments, shares, clicks', async () => {
    const { accessToken } = await connect();
    const { externalId } = await x.publish({ accessToken, parts: ['Count me.'], username: 'u' });
    Object.assign(fake.tweets.get(externalId)?.metrics ?? {}, {
      impressions: 1200,
      likes: 40,
      replies: 7,
      reposts: 5,
      quotes: 2,
      linkClicks: 9,
    });
    expect(await x.metrics({ accessToken, externalId })).toEqual({
      impressions: 1200,
      likes: 40,
      comments: 7,
      shares: 7,
      clicks: 9,
    });
    expect(fake.violations).toEqual([]);
  });
});

describe('X provider: failures', () => {
  it('401 is a typed expired-token error, and a refreshed token then works', async () => {
    const tokens = await connect();
    fake.expire(tokens.accessToken);
    const err = await rejection(x.publish({ accessToken: tokens.accessToken, parts: ['Hi'], username: 'u' }));
    expect(err.kind).toBe('token_expired');
    expect(err.status).toBe(401);
    expect(fake.tweets.size).toBe(0);
    const fresh = await x.refresh(tokens.refreshToken as string);
    await x.publish({ accessToken: fresh.accessToken, parts: ['Hi'], username: 'u' });
    expect(fake.tweets.size).toBe(1);
    expect(fake.violations).toEqual([]);
  });

  it('403 (a scope the person did not grant) is a typed forbidden error, and nothing is posted', async () => {
    const pkce = createPkcePair();
    const scopes = ['tweet.read', 'tweet.write', 'users.read'];
    const url = x.authorizeUrl({ state: 's', codeChallenge: pkce.challenge, redirectUri: REDIRECT, scopes });
    const code = new URL(
      (await fetch(url, { redirect: 'manual' })).headers.get('location') as string,
    ).searchParams.get('code') as string;
    const tokens = await x.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri: REDIRECT });
    expect(tokens.refreshToken).toBeNull(); // no offline.access, no refresh token
    const err = await rejection(
      x.publish({
        accessToken: tokens.accessToken,
        parts: ['Pic'],
        media: [{ mimeType: 'image/png', data: PNG }],
      }),
    );
    expect(err.kind).toBe('forbidden');
    expect(err.status).toBe(403);
    expect(err.message).toMatch(/media\.write/);
    expect(fake.tweets.size).toBe(0);
    expect(fake.violations).toEqual([]);
  });

  it('429 is a typed rate limit carrying x-rate-limit-reset as the retry time', async () => {
    const { accessToken } = await connect();
    const reset = Math.floor(NOW.getTime() / 1000) + 900;
    fake.failNext('POST /2/tweets', {
      kind: 'status',
      status: 429,
      headers: { 'x-rate-limit-reset': String(reset), 'x-rate-limit-remaining': '0' },
    });
    const err = await rejection(x.publish({ accessToken, parts: ['Hi'], username: 'u' }));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAt?.toISOString()).toBe(new Date(reset * 1000).toISOString());
    expect(fake.tweets.size).toBe(0);
  });

  it('429 with only Retry-After counts from now', async () => {
    const { accessToken } = await connect();
    fake.failNext('GET /2/tweets/:id', { kind: 'status', status: 429, headers: { 'retry-after': '60' } });
    const err = await rejection(x.status({ accessToken, externalId: '123' }));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAt?.toISOString()).toBe(new Date(NOW.getTime() + 60_000).toISOString());
  });

  it('503 on a read is unavailable (safe to retry), on a publish it is outcome unknown', async () => {
    const { accessToken } = await connect();
    fake.failNext('GET /2/tweets/:id', { kind: 'status', status: 503 });
    expect((await rejection(x.metrics({ accessToken, externalId: '1' }))).kind).toBe('unavailable');
    fake.failNext('POST /2/tweets', { kind: 'status', status: 503 });
    expect((await rejection(x.publish({ accessToken, parts: ['Hi'], username: 'u' }))).kind).toBe(
      'outcome_unknown',
    );
  });

  it('a hang during POST /2/tweets is OUTCOME UNKNOWN, and no second POST is sent', async () => {
    const { accessToken } = await connect();
    // X stores the post, then the answer never comes.
    fake.failNext('POST /2/tweets', { kind: 'hang', afterAccept: true });
    const err = await rejection(hasty.publish({ accessToken, parts: ['Only once.'], username: 'u' }));
    expect(err.kind).toBe('outcome_unknown');
    expect(err.message).toMatch(/may or may not be live/);
    expect(fake.requests.filter((r) => r === 'POST /2/tweets')).toHaveLength(1);
    expect([...fake.tweets.values()].map((t) => t.text)).toEqual(['Only once.']);
  });

  it('a thread that stops midway says which parts are already out', async () => {
    const { accessToken } = await connect();
    // The third part gets no answer: parts one and two are live, the third may be.
    fake.failNext('POST /2/tweets', { kind: 'hang' }, { after: 2 });
    const err = await rejection(
      hasty.publish({ accessToken, parts: ['One', 'Two', 'Three'], username: 'u' }),
    );
    expect(err.kind).toBe('outcome_unknown');
    const live = [...fake.tweets.values()];
    expect(live.map((t) => t.text)).toEqual(['One', 'Two']);
    expect(err.publishedIds).toEqual(live.map((t) => t.id));
    expect(fake.requests.filter((r) => r === 'POST /2/tweets')).toHaveLength(3);

    // A definite refusal of the second part: the first is out, nothing is unknown.
    fake.failNext('POST /2/tweets', { kind: 'status', status: 429 }, { after: 1 });
    const refused = await rejection(x.publish({ accessToken, parts: ['A', 'B'], username: 'u' }));
    expect(refused.kind).toBe('rate_limited');
    expect(refused.publishedIds.map((id) => fake.tweets.get(id)?.text)).toEqual(['A']);
    expect(fake.violations).toEqual([]);
  });

  it('a timeout on a read is unavailable, not outcome unknown', async () => {
    const { accessToken } = await connect();
    fake.failNext('GET /2/tweets/:id', { kind: 'hang' });
    expect((await rejection(hasty.status({ accessToken, externalId: '1' }))).kind).toBe('unavailable');
  });
});

describe('the X fake follows the published contract', () => {
  it('refuses and records a body the document forbids', async () => {
    const { accessToken } = await connect();
    const res = await fetch(`${fake.url}/2/tweets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi', reply: { in_reply_to_tweet_id: 'abc' }, colour: 'red' }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(((await res.json()) as { type: string }).type).toBe(
      'https://api.x.com/2/problems/invalid-request',
    );
    expect(fake.violations).toHaveLength(1);
    expect(fake.violations[0]).toMatch(/CreatePostsRequest/);
    expect(fake.tweets.size).toBe(0);
  });

  it('refuses and records a one-request upload that is not MediaUploadRequest or not a small image', async () => {
    const { accessToken } = await connect();
    const upload = (body: unknown) =>
      fetch(`${fake.url}/2/media/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const image = PNG.toString('base64');
    // additionalProperties: false: the chunked flow's media_type has no place here.
    const typed = await upload({ media: image, media_category: 'tweet_image', media_type: 'image/png' });
    expect(typed.status).toBe(400);
    expect((await upload({ media_category: 'tweet_image' })).status).toBe(400);
    expect((await upload({ media: 'not base64!', media_category: 'tweet_image' })).status).toBe(400);
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]).toString('base64');
    expect((await upload({ media: big, media_category: 'tweet_image' })).status).toBe(400);
    expect(fake.violations).toHaveLength(4);
    expect(fake.violations[0]).toMatch(/MediaUploadRequest/);
    expect(fake.violations[3]).toMatch(/over the 5 MB/);
    expect(fake.media.size).toBe(0);
  });

  it('refuses and records an undeclared query field and a reply to a post that does not exist', async () => {
    const { accessToken } = await connect();
    const auth = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const q = await fetch(`${fake.url}/2/tweets/1?post.fields=public_metrics,favourites`, { headers: auth });
    expect(q.status).toBe(400);
    const reply = await fetch(`${fake.url}/2/tweets`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ text: 'hi', reply: { in_reply_to_tweet_id: '42' } }),
    });
    expect(reply.status).toBe(400);
    const media = await fetch(`${fake.url}/2/tweets`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ text: 'hi', media: { media_ids: ['77'] } }),
    });
    expect(media.status).toBe(400);
    expect(fake.violations).toHaveLength(3);
    expect(fake.violations.join('\n')).toMatch(/favourites[\s\S]*42[\s\S]*77/);
  });

  it('a token acts as its account: another account’s token may not post or check the first one’s media', async () => {
    const first = await connect();
    const [mediaId] = (
      await x.publish({
        accessToken: first.accessToken,
        parts: ['Mine.'],
        media: [{ mimeType: 'image/png', data: PNG }],
      })
    ).externalIds.map((id) => fake.tweets.get(id)?.mediaIds[0]);
    fake.signInAs({ id: '1500000000000000001', name: 'Other', username: 'other' });
    const second = await connect();
    expect(await x.account?.(second.accessToken)).toEqual({
      id: '1500000000000000001',
      handle: 'other',
      displayName: 'Other',
    });
    const auth = { authorization: `Bearer ${second.accessToken}`, 'content-type': 'application/json' };
    const posted = await fetch(`${fake.url}/2/tweets`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ text: 'Not mine.', media: { media_ids: [mediaId] } }),
    });
    expect(posted.status).toBe(400);
    const checked = await fetch(`${fake.url}/2/media/upload?command=STATUS&media_id=${mediaId}`, {
      headers: auth,
    });
    expect(checked.status).toBe(400);
    expect(fake.violations).toEqual([
      `media_ids ${mediaId} were uploaded by another account`,
      `status of media ${mediaId}, another account's upload`,
    ]);
    // What the second account posts with its own upload is its own.
    const own = await x.publish({
      accessToken: second.accessToken,
      parts: ['Mine too.'],
      media: [{ mimeType: 'image/png', data: PNG }],
    });
    expect(fake.tweets.get(own.externalId)?.authorId).toBe('1500000000000000001');
    expect(own.permalink).toMatch(/^https:\/\/x\.com\/other\/status\//);
  });

  it('requires a bearer token the token endpoint issued', async () => {
    const res = await fetch(`${fake.url}/2/users/me`, { headers: { authorization: 'Bearer made-up' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ code: 401, message: 'Unauthorized' });
  });
});
