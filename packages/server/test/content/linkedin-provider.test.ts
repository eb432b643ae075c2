import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createLinkedInProvider,
  fromLittleText,
  LINKEDIN_SCOPES,
  toLittleText,
} from '../../src/content/publishers/linkedin/index.js';
import type { PlatformProvider } from '../../src/content/publishers/provider.js';
import { type LinkedInFake, startLinkedInFake } from '../fakes/linkedin-fake.js';
import { authorizeOn, connectOn, PNG, rejection } from '../fakes/provider-kit.js';

const REDIRECT = 'http://127.0.0.1:4000/oauth/linkedin/callback';
const NOW = new Date('2026-11-23T12:00:00Z');
const ANALYTICS = [...LINKEDIN_SCOPES, 'r_member_postAnalytics'];

let fake: LinkedInFake;
let li: PlatformProvider;
let hasty: PlatformProvider;

const make = (extra: Partial<Parameters<typeof createLinkedInProvider>[0]> = {}) =>
  createLinkedInProvider({
    apiUrl: fake.url,
    authUrl: fake.authUrl,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    now: () => NOW,
    ...extra,
  });

beforeEach(async () => {
  fake = await startLinkedInFake({ refreshTokens: true });
  li = make();
  hasty = make({ timeoutMs: 1000 });
});
afterEach(async () => {
  await fake.close();
});

const connect = (scopes?: string[]) => connectOn(li, REDIRECT, scopes);

describe('LinkedIn provider: OAuth 2.0 (3-legged)', () => {
  it('builds an authorise URL with state, the callback and the space-separated scopes, and no PKCE', () => {
    const url = new URL(li.authorizeUrl({ state: 'abc', codeChallenge: 'ch', redirectUri: REDIRECT }));
    expect(`${url.origin}${url.pathname}`).toBe(fake.authUrl);
    const q = url.searchParams;
    expect(Object.fromEntries(q)).toEqual({
      response_type: 'code',
      client_id: fake.clientId,
      redirect_uri: REDIRECT,
      state: 'abc',
      scope: 'openid profile w_member_social',
    });
    const real = createLinkedInProvider({ clientId: 'c' });
    expect(real.authorizeUrl({ state: 's', codeChallenge: 'c', redirectUri: REDIRECT })).toMatch(
      /^https:\/\/www\.linkedin\.com\/oauth\/v2\/authorization\?/,
    );
  });

  it('exchanges the code for a 60-day token and its scopes; the code works once', async () => {
    const { pkce, code, back } = await authorizeOn(li, REDIRECT);
    expect(back.searchParams.get('state')).toBe('st-1');
    const tokens = await li.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri: REDIRECT });
    expect(tokens.expiresAt?.toISOString()).toBe(new Date(NOW.getTime() + 5_184_000_000).toISOString());
    expect(tokens.scopes).toEqual([...LINKEDIN_SCOPES]);
    expect(tokens.refreshToken).toBeTruthy();
    const again = await rejection(
      li.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri: REDIRECT }),
    );
    expect(again.kind).toBe('rejected');
    expect(fake.violations).toEqual([]);
  });

  it('refreshes with a refresh token when the app has them; a bad one is rejected, not token_expired', async () => {
    const first = await connect();
    const second = await li.refresh(first.refreshToken as string);
    expect(second.accessToken).not.toBe(first.accessToken);
    await li.publish({ accessToken: second.accessToken, parts: ['After a refresh.'] });
    const bad = await rejection(li.refresh('made-up'));
    expect(bad.kind).toBe('rejected');
    expect(fake.violations).toEqual([]);
  });

  it('an app without programmatic refresh tokens gets none, and says so with null', async () => {
    await fake.close();
    fake = await startLinkedInFake({ refreshTokens: false });
    li = make();
    const tokens = await connect();
    expect(tokens.refreshToken).toBeNull();
    expect(tokens.expiresAt).not.toBeNull();
  });

  it('a wrong client secret is refused at the token endpoint', async () => {
    const { pkce, code } = await authorizeOn(li, REDIRECT);
    const err = await rejection(
      make({ clientSecret: 'nope' }).exchangeCode({
        code,
        codeVerifier: pkce.verifier,
        redirectUri: REDIRECT,
      }),
    );
    expect(err.kind).toBe('rejected');
    expect(err.status).toBe(401);
  });
});

describe('LinkedIn provider: publishing', () => {
  it('names the account from OpenID userinfo: the member id, and the name people read', async () => {
    const { accessToken } = await connect();
    expect(await li.account?.(accessToken)).toEqual({
      id: fake.member.sub,
      handle: fake.member.sub,
      displayName: fake.member.name,
    });
    fake.expire(accessToken);
    expect((await rejection(li.account?.(accessToken) as Promise<unknown>)).kind).toBe('token_expired');
  });

  it('publishes as the member from /v2/userinfo; the id comes from x-restli-id', async () => {
    const { accessToken } = await connect();
    const res = await li.publish({ accessToken, parts: ['Monday notes, twelve minutes.'] });
    expect(res.externalId).toMatch(/^urn:li:share:\d+$/);
    expect(res.externalIds).toEqual([res.externalId]);
    expect(res.permalink).toBe(`https://www.linkedin.com/feed/update/${res.externalId}/`);
    expect(fake.posts.get(res.externalId)).toMatchObject({
      author: `urn:li:person:${fake.member.sub}`,
      text: 'Monday notes, twelve minutes.',
    });
    expect(fake.violations).toEqual([]);
  });

  it('escapes every reserved character, so the member reads exactly what was written', async () => {
    const { accessToken } = await connect();
    const text =
      'Q&A (part 1) [draft]: a|b {c} <d> *e* _f_ ~g~ back\\slash, email me@fieldnote.dev, #1 and #buildinpublic';
    const res = await li.publish({ accessToken, parts: [text] });
    expect(fake.violations).toEqual([]);
    const post = fake.posts.get(res.externalId);
    expect(post?.text).toBe(text);
    // The hashtag stays a hashtag (the template), everything else is plain text.
    expect(post?.commentary).toContain('{hashtag|\\#|buildinpublic}');
    expect(post?.commentary).toContain('\\(part 1\\)');
    expect(post?.commentary).toContain('\\#1 and');
    expect((await li.status({ accessToken, externalId: res.externalId })).text).toBe(text);
  });

  it('little text round-trips, and an escaped brace never starts a template', () => {
    for (const s of ['{hashtag|#|x}', '\\{', 'a #b c#d', '@[x](urn:li:person:1)', 'plain']) {
      expect(fromLittleText(toLittleText(s))).toBe(s);
    }
  });

  it('uploads an image (initializeUpload, then PUT) and attaches it; two images make a multi-image post', async () => {
    const { accessToken } = await connect();
    const one = await li.publish({
      accessToken,
      parts: ['With a picture.'],
      media: [{ mimeType: 'image/png', data: PNG }],
    });
    const images = fake.posts.get(one.externalId)?.images ?? [];
    expect(images).toHaveLength(1);
    expect(fake.images.get(images[0] as string)).toMatchObject({ bytes: PNG.length, type: 'image/png' });
    const initialized = fake.requests.indexOf('POST /rest/images');
    expect(fake.requests[initialized + 1]).toMatch(/^PUT \/dms-uploads\//);
    expect(initialized).toBeLessThan(fake.requests.indexOf('POST /rest/posts'));
    const two = await li.publish({
      accessToken,
      parts: ['Two.'],
      media: [
        { mimeType: 'image/png', data: PNG },
        { mimeType: 'image/png', data: PNG },
      ],
    });
    expect(fake.posts.get(two.externalId)?.images).toHaveLength(2);
    expect(fake.violations).toEqual([]);
  });

  it('refuses before any call what LinkedIn would refuse: 3,001 characters, two parts, a PDF, 21 images', async () => {
    const { accessToken } = await connect();
    const before = fake.requests.length;
    const image = { mimeType: 'image/png', data: PNG };
    for (const input of [
      { parts: ['a'.repeat(3001)] },
      { parts: ['one', 'two'] },
      { parts: ['x'], media: [{ mimeType: 'application/pdf', data: PNG }] },
      { parts: ['x'], media: Array(21).fill(image) },
      { parts: ['  '] },
    ]) {
      expect((await rejection(li.publish({ accessToken, ...input }))).kind).toBe('invalid');
    }
    expect(fake.requests.length).toBe(before);
    // 3,000 emoji are 3,000 characters.
    await li.publish({ accessToken, parts: ['🙂'.repeat(3000)] });
    expect(fake.violations).toEqual([]);
  });
});

describe('LinkedIn provider: status and metrics', () => {
  it('reads a post’s status, says when it is gone, and refuses what is no post URN before calling', async () => {
    const { accessToken } = await connect();
    const { externalId } = await li.publish({ accessToken, parts: ['Still there?'] });
    expect(await li.status({ accessToken, externalId })).toEqual({
      externalId,
      exists: true,
      text: 'Still there?',
    });
    fake.posts.delete(externalId);
    expect(await li.status({ accessToken, externalId })).toEqual({ externalId, exists: false, text: null });
    const before = fake.requests.length;
    for (const bad of ['urn:li:share:1/../x', '../v2/userinfo', 'urn:li:person:1', '']) {
      expect((await rejection(li.status({ accessToken, externalId: bad }))).kind).toBe('invalid');
      expect((await rejection(li.metrics({ accessToken, externalId: bad }))).kind).toBe('invalid');
    }
    expect(fake.requests.length).toBe(before);
    expect(fake.violations).toEqual([]);
  });

  it('maps member post analytics to impressions, likes, comments, shares', async () => {
    const { accessToken } = await connect(ANALYTICS);
    const { externalId } = await li.publish({ accessToken, parts: ['Count me.'] });
    Object.assign(fake.posts.get(externalId)?.metrics ?? {}, {
      impressions: 1400,
      reactions: 52,
      comments: 9,
      reshares: 4,
    });
    expect(await li.metrics({ accessToken, externalId })).toEqual({
      impressions: 1400,
      likes: 52,
      comments: 9,
      shares: 4,
      clicks: 0,
    });
    expect(fake.violations).toEqual([]);
  });

  it('metrics without r_member_postAnalytics are a typed forbidden error', async () => {
    const { accessToken } = await connect();
    const { externalId } = await li.publish({ accessToken, parts: ['No stats for me.'] });
    const err = await rejection(li.metrics({ accessToken, externalId }));
    expect(err.kind).toBe('forbidden');
    expect(err.message).toMatch(/r_member_postAnalytics/);
  });

  it('has no replies read: LinkedIn keeps comments behind a closed permission', () => {
    expect(li.replies).toBeUndefined();
  });
});

describe('LinkedIn provider: failures', () => {
  it('401 is token_expired and nothing is posted', async () => {
    const tokens = await connect();
    fake.expire(tokens.accessToken);
    const err = await rejection(li.publish({ accessToken: tokens.accessToken, parts: ['Hi'] }));
    expect(err.kind).toBe('token_expired');
    expect(fake.posts.size).toBe(0);
  });

  it('429 is rate_limited with Retry-After as the retry time', async () => {
    const { accessToken } = await connect();
    fake.failNext('POST /rest/posts', { kind: 'status', status: 429, headers: { 'retry-after': '120' } });
    const err = await rejection(li.publish({ accessToken, parts: ['Hi'] }));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAt?.toISOString()).toBe(new Date(NOW.getTime() + 120_000).toISOString());
    expect(fake.posts.size).toBe(0);
  });

  it('a 5xx on a read is unavailable, on the publish it is outcome unknown', async () => {
    const { accessToken } = await connect();
    fake.failNext('GET /rest/posts/:id', { kind: 'status', status: 503 });
    expect((await rejection(li.status({ accessToken, externalId: 'urn:li:share:1' }))).kind).toBe(
      'unavailable',
    );
    fake.failNext('POST /rest/posts', { kind: 'status', status: 500 });
    expect((await rejection(li.publish({ accessToken, parts: ['Hi'] }))).kind).toBe('outcome_unknown');
  });

  it('a hang during POST /rest/posts is OUTCOME UNKNOWN, and no second POST is sent', async () => {
    const { accessToken } = await connect();
    fake.failNext('POST /rest/posts', { kind: 'hang', afterAccept: true });
    const err = await rejection(hasty.publish({ accessToken, parts: ['Only once.'] }));
    expect(err.kind).toBe('outcome_unknown');
    expect(err.message).toMatch(/may or may not be live/);
    expect(fake.requests.filter((r) => r === 'POST /rest/posts')).toHaveLength(1);
    expect([...fake.posts.values()].map((p) => p.text)).toEqual(['Only once.']);
  });

  it('a timeout on an image upload is unavailable: nothing was posted', async () => {
    const { accessToken } = await connect();
    fake.failNext('POST /rest/images', { kind: 'hang' });
    const err = await rejection(
      hasty.publish({ accessToken, parts: ['Pic'], media: [{ mimeType: 'image/png', data: PNG }] }),
    );
    expect(err.kind).toBe('unavailable');
    expect(fake.posts.size).toBe(0);
  });
});

describe('the LinkedIn fake follows the reference pages', () => {
  it('refuses and records unescaped commentary, a missing LinkedIn-Version, and an undocumented field', async () => {
    const { accessToken } = await connect();
    const author = `urn:li:person:${fake.member.sub}`;
    const post = (
      body: unknown,
      headers: Record<string, string> = {
        'LinkedIn-Version': '202603',
        'X-Restli-Protocol-Version': '2.0.0',
      },
    ) =>
      fetch(`${fake.url}/rest/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const good = {
      author,
      commentary: 'ok',
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
    };
    expect((await post({ ...good, commentary: 'Q&A (part 1)' })).status).toBe(422);
    expect((await post(good, {})).status).toBe(400);
    const extra = await post({ ...good, colour: 'red' });
    expect(extra.status).toBe(400);
    expect(await extra.json()).toMatchObject({ status: 400, message: expect.stringMatching(/colour/) });
    expect(fake.violations).toHaveLength(3);
    expect(fake.violations[0]).toMatch(/reserved character '\(' at 4/);
    expect(fake.posts.size).toBe(0);
  });
});
