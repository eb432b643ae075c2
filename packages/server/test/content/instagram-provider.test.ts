import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createInstagramProvider, INSTAGRAM_SCOPES } from '../../src/content/publishers/instagram/index.js';
import type { PlatformProvider } from '../../src/content/publishers/provider.js';
import { type InstagramFake, startInstagramFake } from '../fakes/instagram-fake.js';
import { authorizeOn, connectOn, JPEG, PNG, rejection } from '../fakes/provider-kit.js';

const REDIRECT = 'http://127.0.0.1:4000/oauth/instagram/callback';
const NOW = new Date('2026-11-23T12:00:00Z');
const PUBLIC = 'https://media.fieldnote.example/m/';
const image = (name = 'a.jpg') => ({ mimeType: 'image/jpeg', data: JPEG, url: `${PUBLIC}${name}` });

let fake: InstagramFake;
let ig: PlatformProvider;
let hasty: PlatformProvider;
let waits: number[];

const make = (extra: Partial<Parameters<typeof createInstagramProvider>[0]> = {}) =>
  createInstagramProvider({
    apiUrl: fake.url,
    authUrl: fake.authUrl,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    now: () => NOW,
    pollIntervalMs: 5,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });

beforeEach(async () => {
  waits = [];
  fake = await startInstagramFake();
  ig = make();
  hasty = make({ timeoutMs: 1000 });
});
afterEach(async () => {
  await fake.close();
});

const connect = () => connectOn(ig, REDIRECT);

describe('Instagram provider: Business Login', () => {
  it('builds the authorise URL with comma-separated scopes, state and the callback', () => {
    const q = new URL(ig.authorizeUrl({ state: 'abc', codeChallenge: 'c', redirectUri: REDIRECT }))
      .searchParams;
    expect(Object.fromEntries(q)).toEqual({
      client_id: fake.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: INSTAGRAM_SCOPES.join(','),
      state: 'abc',
    });
    const real = createInstagramProvider({ clientId: 'c' });
    expect(real.authorizeUrl({ state: 's', codeChallenge: 'c', redirectUri: REDIRECT })).toMatch(
      /^https:\/\/www\.instagram\.com\/oauth\/authorize\?/,
    );
  });

  it('exchanges the code on api.instagram.com for the real API, even when its URL is passed explicitly', async () => {
    for (const apiUrl of [undefined, 'https://graph.instagram.com', 'https://graph.instagram.com/']) {
      const urls: string[] = [];
      const spy = createInstagramProvider({
        clientId: 'c',
        clientSecret: 's',
        apiUrl,
        fetch: async (url) => {
          urls.push(String(url));
          return new Response('{}', { status: 400 });
        },
      });
      await rejection(spy.exchangeCode({ code: 'x', codeVerifier: 'v', redirectUri: REDIRECT }));
      expect(urls).toEqual(['https://api.instagram.com/oauth/access_token']);
    }
  });

  it('exchanges the code, then the short-lived token for a 60-day one that is its own refresh token', async () => {
    const tokens = await connect();
    expect(fake.requests.slice(-2)).toEqual(['POST /oauth/access_token', 'GET /access_token']);
    expect(tokens.accessToken).toMatch(/^instagram-long-/);
    expect(tokens.refreshToken).toBe(tokens.accessToken);
    expect(tokens.expiresAt?.toISOString()).toBe(new Date(NOW.getTime() + 5_183_944_000).toISOString());
    expect(tokens.scopes).toEqual([...INSTAGRAM_SCOPES]);
    const renewed = await ig.refresh(tokens.refreshToken as string);
    expect(renewed.accessToken).not.toBe(tokens.accessToken);
    expect(renewed.refreshToken).toBe(renewed.accessToken);
    expect(fake.violations).toEqual([]);
  });

  it('a spent code and a refresh of a dead token are rejected (not token_expired)', async () => {
    const { pkce, code } = await authorizeOn(ig, REDIRECT);
    await ig.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri: REDIRECT });
    expect(
      (await rejection(ig.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri: REDIRECT }))).kind,
    ).toBe('rejected');
    const tokens = await connect();
    fake.expire(tokens.accessToken);
    expect((await rejection(ig.refresh(tokens.accessToken))).kind).toBe('rejected');
    expect(fake.violations).toEqual([]);
  });
});

describe('Instagram provider: publishing', () => {
  it('names the account: its Instagram user id, handle and name', async () => {
    const { accessToken } = await connect();
    expect(await ig.account?.(accessToken)).toEqual({
      id: fake.user.id,
      handle: 'fieldnote.studio',
      displayName: 'Fieldnote Studio',
    });
    expect(fake.violations).toEqual([]);
  });

  it('creates a container, waits for FINISHED, then publishes it once', async () => {
    const { accessToken } = await connect();
    fake.nextContainerStates(['IN_PROGRESS', 'IN_PROGRESS', 'FINISHED']);
    const res = await ig.publish({ accessToken, parts: ['Monday notes #process'], media: [image()] });
    const post = fake.posts.get(res.externalId);
    expect(post).toMatchObject({
      text: 'Monday notes #process',
      mediaType: 'IMAGE',
      imageUrls: [`${PUBLIC}a.jpg`],
    });
    expect(res.permalink).toBe(`https://www.instagram.com/p/${res.externalId}/`);
    expect(waits).toEqual([5, 5]);
    expect(fake.requests.filter((r) => r.endsWith('/media_publish'))).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it('several images make a carousel: items first, then the carousel container with the caption', async () => {
    const { accessToken } = await connect();
    const res = await ig.publish({
      accessToken,
      parts: ['Three looks.'],
      media: [image('1.jpg'), image('2.jpg'), image('3.jpg')],
    });
    expect(fake.posts.get(res.externalId)).toMatchObject({
      mediaType: 'CAROUSEL_ALBUM',
      text: 'Three looks.',
      imageUrls: ['1.jpg', '2.jpg', '3.jpg'].map((n) => `${PUBLIC}${n}`),
    });
    expect(fake.violations).toEqual([]);
  });

  it('a container that ends in ERROR or EXPIRED is a clear refusal, and nothing is published', async () => {
    const { accessToken } = await connect();
    fake.nextContainerStates(['IN_PROGRESS', 'ERROR']);
    const err = await rejection(ig.publish({ accessToken, parts: ['x'], media: [image()] }));
    expect(err.kind).toBe('rejected');
    expect(err.message).toMatch(/ERROR/);
    fake.nextContainerStates(['EXPIRED']);
    expect((await rejection(ig.publish({ accessToken, parts: ['x'], media: [image()] }))).message).toMatch(
      /24 hours/,
    );
    fake.nextContainerStates(Array(40).fill('IN_PROGRESS'));
    const slow = await rejection(
      make({ pollAttempts: 3 }).publish({ accessToken, parts: ['x'], media: [image()] }),
    );
    expect(slow.kind).toBe('unavailable');
    expect(slow.message).toMatch(/nothing was published/);
    expect(fake.posts.size).toBe(0);
    expect(fake.violations).toEqual([]);
  });

  it('checks the 24-hour publishing limit before creating anything', async () => {
    const { accessToken } = await connect();
    fake.setQuotaUsage(100);
    const before = fake.containers.size;
    const err = await rejection(ig.publish({ accessToken, parts: ['One too many.'], media: [image()] }));
    expect(err.kind).toBe('rate_limited');
    expect(err.message).toMatch(/100 published posts per 24 hours/);
    expect(fake.containers.size).toBe(before);
    expect(fake.violations).toEqual([]);
  });

  it('refuses a media URL Meta cannot fetch: loopback, private, internal names, plain http, none at all', async () => {
    const { accessToken } = await connect();
    const before = fake.requests.length;
    for (const url of [
      'http://127.0.0.1:4000/media/a.jpg',
      'https://localhost/a.jpg',
      'https://10.1.2.3/a.jpg',
      'https://[::1]/a.jpg',
      'https://media.internal/a.jpg',
      'http://media.fieldnote.example/a.jpg',
      undefined,
    ]) {
      const err = await rejection(
        ig.publish({ accessToken, parts: ['x'], media: [{ mimeType: 'image/jpeg', data: JPEG, url }] }),
      );
      expect(err.kind).toBe('invalid');
      expect(err.message).toMatch(/CONTENT_PUBLIC_URL/);
    }
    expect(fake.requests.length).toBe(before);
    // The explicit escape hatch (tests, local demos) lets a loopback URL through.
    const local = make({ allowPrivateMediaUrls: true });
    await local.publish({
      accessToken,
      parts: ['x'],
      media: [{ mimeType: 'image/jpeg', data: JPEG, url: `${fake.url}/a.jpg` }],
    });
    expect(fake.violations).toEqual([]);
  });

  it('refuses what Instagram would refuse before any call: no image, a PNG, 11 images, 2,201 characters, 31 hashtags', async () => {
    const { accessToken } = await connect();
    const before = fake.requests.length;
    for (const input of [
      { parts: ['Text only.'] },
      { parts: ['x'], media: [{ mimeType: 'image/png', data: PNG, url: `${PUBLIC}a.png` }] },
      { parts: ['x'], media: Array(11).fill(image()) },
      { parts: ['a'.repeat(2201)], media: [image()] },
      { parts: [Array.from({ length: 31 }, (_, i) => `#t${i}`).join(' ')], media: [image()] },
      { parts: ['a', 'b'], media: [image()] },
    ]) {
      expect((await rejection(ig.publish({ accessToken, ...input }))).kind).toBe('invalid');
    }
    expect(fake.requests.length).toBe(before);
  });
});

describe('Instagram provider: status, metrics, comments', () => {
  it('reads status, says when a post is gone, and refuses ids that are no media id', async () => {
    const { accessToken } = await connect();
    const { externalId } = await ig.publish({ accessToken, parts: ['Still there?'], media: [image()] });
    expect(await ig.status({ accessToken, externalId })).toEqual({
      externalId,
      exists: true,
      text: 'Still there?',
    });
    fake.posts.delete(externalId);
    expect(await ig.status({ accessToken, externalId })).toEqual({ externalId, exists: false, text: null });
    const before = fake.requests.length;
    for (const bad of ['../me', '1/insights', '12%2F3', '']) {
      expect((await rejection(ig.status({ accessToken, externalId: bad }))).kind).toBe('invalid');
      expect((await rejection(ig.metrics({ accessToken, externalId: bad }))).kind).toBe('invalid');
      expect((await rejection(ig.replies?.({ accessToken, externalId: bad }) as Promise<unknown>)).kind).toBe(
        'invalid',
      );
    }
    expect(fake.requests.length).toBe(before);
    expect(fake.violations).toEqual([]);
  });

  it('maps insights to impressions (views), likes, comments, shares', async () => {
    const { accessToken } = await connect();
    const { externalId } = await ig.publish({ accessToken, parts: ['Count me.'], media: [image()] });
    Object.assign(fake.posts.get(externalId)?.insights ?? {}, {
      views: 1700,
      likes: 88,
      comments: 12,
      shares: 6,
    });
    expect(await ig.metrics({ accessToken, externalId })).toEqual({
      impressions: 1700,
      likes: 88,
      comments: 12,
      shares: 6,
      clicks: 0,
    });
    expect(fake.violations).toEqual([]);
  });

  it('reads comments as replies', async () => {
    const { accessToken } = await connect();
    const { externalId } = await ig.publish({ accessToken, parts: ['Ask me.'], media: [image()] });
    fake.posts.get(externalId)?.replies.push({
      id: '1799',
      text: 'Could you add a size guide?',
      username: 'mara',
      timestamp: '2026-11-23T13:00:00+0000',
    });
    expect(await ig.replies?.({ accessToken, externalId })).toEqual([
      {
        externalId: '1799',
        author: 'mara',
        text: 'Could you add a size guide?',
        createdAt: new Date('2026-11-23T13:00:00Z'),
      },
    ]);
    expect(fake.violations).toEqual([]);
  });
});

describe('Instagram provider: failures', () => {
  it('an expired token (Meta: HTTP 400, code 190) is token_expired, and a refreshed token works', async () => {
    const tokens = await connect();
    fake.expire(tokens.accessToken);
    const err = await rejection(
      ig.publish({ accessToken: tokens.accessToken, parts: ['x'], media: [image()] }),
    );
    expect(err.kind).toBe('token_expired');
    expect(err.status).toBe(400);
    const fresh = await connect();
    await ig.publish({ accessToken: fresh.accessToken, parts: ['x'], media: [image()] });
    expect(fake.posts.size).toBe(1);
  });

  it('429 (code 4) is rate_limited with Retry-After as the retry time', async () => {
    const { accessToken } = await connect();
    fake.failNext('POST /:user/media_publish', {
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '300' },
    });
    const err = await rejection(ig.publish({ accessToken, parts: ['x'], media: [image()] }));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAt?.toISOString()).toBe(new Date(NOW.getTime() + 300_000).toISOString());
    expect(fake.posts.size).toBe(0);
  });

  it('a hang during media_publish is OUTCOME UNKNOWN, and it is not sent again', async () => {
    const { accessToken } = await connect();
    fake.failNext('POST /:user/media_publish', { kind: 'hang', afterAccept: true });
    const err = await rejection(hasty.publish({ accessToken, parts: ['Only once.'], media: [image()] }));
    expect(err.kind).toBe('outcome_unknown');
    expect(fake.requests.filter((r) => r.endsWith('/media_publish'))).toHaveLength(1);
    expect([...fake.posts.values()].map((p) => p.text)).toEqual(['Only once.']);
  });

  it('a 5xx while creating the container is unavailable: nothing can be live yet', async () => {
    const { accessToken } = await connect();
    fake.failNext('POST /:user/media', { kind: 'status', status: 503 });
    expect((await rejection(ig.publish({ accessToken, parts: ['x'], media: [image()] }))).kind).toBe(
      'unavailable',
    );
  });
});

describe('the Instagram fake follows the reference pages', () => {
  it('refuses and records an undocumented field, a caption on a carousel item, and publishing an unfinished container', async () => {
    const { accessToken } = await connect();
    const post = (edge: string, body: unknown) =>
      fetch(`${fake.url}/v23.0/${fake.user.id}/${edge}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const extra = await post('media', { image_url: `${PUBLIC}a.jpg`, colour: 'red' });
    expect(extra.status).toBe(400);
    expect(await extra.json()).toMatchObject({
      error: { code: 100, message: expect.stringMatching(/colour/) },
    });
    expect(
      (await post('media', { image_url: `${PUBLIC}a.jpg`, is_carousel_item: true, caption: 'no' })).status,
    ).toBe(400);
    fake.nextContainerStates(['IN_PROGRESS', 'FINISHED']);
    const { id } = (await (await post('media', { image_url: `${PUBLIC}a.jpg` })).json()) as { id: string };
    expect((await post('media_publish', { creation_id: id })).status).toBe(400);
    expect(fake.violations).toHaveLength(3);
    expect(fake.violations[2]).toMatch(/IN_PROGRESS, not FINISHED/);
    expect(fake.posts.size).toBe(0);
  });
});
