import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformProvider } from '../../src/content/publishers/provider.js';
import {
  createThreadsProvider,
  THREADS_SCOPES,
  threadsLength,
} from '../../src/content/publishers/threads/index.js';
import { connectOn, JPEG, rejection } from '../fakes/provider-kit.js';
import { startThreadsFake, type ThreadsFake } from '../fakes/threads-fake.js';

const REDIRECT = 'http://127.0.0.1:4000/oauth/threads/callback';
const NOW = new Date('2026-11-23T12:00:00Z');
const PUBLIC = 'https://media.fieldnote.example/m/';
const image = (name = 'a.jpg') => ({ mimeType: 'image/jpeg', data: JPEG, url: `${PUBLIC}${name}` });

let fake: ThreadsFake;
let th: PlatformProvider;
let hasty: PlatformProvider;

const make = (extra: Partial<Parameters<typeof createThreadsProvider>[0]> = {}) =>
  createThreadsProvider({
    apiUrl: fake.url,
    authUrl: fake.authUrl,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    now: () => NOW,
    sleep: async () => {},
    ...extra,
  });

beforeEach(async () => {
  fake = await startThreadsFake();
  th = make();
  hasty = make({ timeoutMs: 1000 });
});
afterEach(async () => {
  await fake.close();
});

const connect = () => connectOn(th, REDIRECT);
const texts = () => [...fake.posts.values()].map((p) => p.text);

describe('Threads provider: login', () => {
  it('builds the authorise URL on threads.net with comma-separated scopes', () => {
    const q = new URL(th.authorizeUrl({ state: 'abc', codeChallenge: 'c', redirectUri: REDIRECT }))
      .searchParams;
    expect(q.get('scope')).toBe(THREADS_SCOPES.join(','));
    expect(q.get('state')).toBe('abc');
    expect(q.get('redirect_uri')).toBe(REDIRECT);
    expect(q.get('response_type')).toBe('code');
    expect(
      createThreadsProvider({ clientId: 'c' }).authorizeUrl({
        state: 's',
        codeChallenge: 'c',
        redirectUri: REDIRECT,
      }),
    ).toMatch(/^https:\/\/threads\.net\/oauth\/authorize\?/);
  });

  it('exchanges the code for a long-lived token (th_exchange_token) and refreshes it (th_refresh_token)', async () => {
    const tokens = await connect();
    expect(fake.requests.slice(-2)).toEqual(['POST /oauth/access_token', 'GET /access_token']);
    expect(tokens.refreshToken).toBe(tokens.accessToken);
    expect(tokens.expiresAt?.getTime()).toBe(NOW.getTime() + 5_183_944_000);
    const renewed = await th.refresh(tokens.accessToken);
    expect(renewed.accessToken).not.toBe(tokens.accessToken);
    expect(fake.requests.at(-1)).toBe('GET /refresh_access_token');
    expect((await rejection(th.refresh('made-up'))).kind).toBe('rejected');
    expect(fake.violations).toEqual([]);
  });

  it('a refresh that gets a 5xx or no answer is unavailable (try again), a refused one is rejected (reconnect)', async () => {
    const tokens = await connect();
    fake.failNext('GET /refresh_access_token', { kind: 'status', status: 503 });
    expect((await rejection(th.refresh(tokens.accessToken))).kind).toBe('unavailable');
    fake.failNext('GET /refresh_access_token', { kind: 'hang' });
    expect((await rejection(hasty.refresh(tokens.accessToken))).kind).toBe('unavailable');
    fake.expire(tokens.accessToken);
    expect((await rejection(th.refresh(tokens.accessToken))).kind).toBe('rejected');
    expect(fake.violations).toEqual([]);
  });
});

describe('Threads provider: publishing', () => {
  it('names the account: its Threads user id, handle and name', async () => {
    const { accessToken } = await connect();
    expect(await th.account?.(accessToken)).toEqual({
      id: fake.user.id,
      handle: 'fieldnote',
      displayName: 'Fieldnote',
    });
    expect(fake.violations).toEqual([]);
  });

  it('publishes a text post: container, then threads_publish', async () => {
    const { accessToken } = await connect();
    const res = await th.publish({ accessToken, parts: ['Monday notes, twelve minutes.'] });
    expect(fake.posts.get(res.externalId)).toMatchObject({
      mediaType: 'TEXT_POST',
      text: 'Monday notes, twelve minutes.',
      replyTo: null,
    });
    expect(res.permalink).toBe(`https://www.threads.com/p/${res.externalId}/`);
    expect(fake.violations).toEqual([]);
  });

  it('a thread posts each later part as a reply to the part before, in order', async () => {
    const { accessToken } = await connect();
    const res = await th.publish({
      accessToken,
      parts: ['One: the hook.', 'Two: the point.', 'Three: the ask.'],
    });
    const [a, b, c] = res.externalIds.map((id) => fake.posts.get(id));
    expect(a).toMatchObject({ text: 'One: the hook.', replyTo: null });
    expect(b).toMatchObject({ text: 'Two: the point.', replyTo: a?.id });
    expect(c).toMatchObject({ text: 'Three: the ask.', replyTo: b?.id });
    expect(fake.violations).toEqual([]);
  });

  it('images go on the first part: one as IMAGE, several as a carousel', async () => {
    const { accessToken } = await connect();
    const one = await th.publish({ accessToken, parts: ['Pic.', 'More.'], media: [image()] });
    expect(fake.posts.get(one.externalId)).toMatchObject({
      mediaType: 'IMAGE',
      imageUrls: [`${PUBLIC}a.jpg`],
    });
    expect(fake.posts.get(one.externalIds[1] as string)).toMatchObject({
      mediaType: 'TEXT_POST',
      imageUrls: [],
    });
    const many = await th.publish({ accessToken, parts: ['Pics.'], media: [image('1.jpg'), image('2.jpg')] });
    expect(fake.posts.get(many.externalId)).toMatchObject({
      mediaType: 'CAROUSEL_ALBUM',
      imageUrls: [`${PUBLIC}1.jpg`, `${PUBLIC}2.jpg`],
    });
    expect(fake.violations).toEqual([]);
  });

  it('counts 500 characters with emojis as their UTF-8 bytes, and refuses before any call', async () => {
    expect(threadsLength('abc')).toBe(3);
    expect(threadsLength('🙂')).toBe(4);
    expect(threadsLength('é')).toBe(1);
    const { accessToken } = await connect();
    const before = fake.requests.length;
    for (const parts of [['a'.repeat(501)], [`${'a'.repeat(497)}🙂`], Array(11).fill('x'), ['ok', ' ']]) {
      expect((await rejection(th.publish({ accessToken, parts }))).kind).toBe('invalid');
    }
    expect(
      (
        await rejection(
          th.publish({ accessToken, parts: ['x'], media: [{ ...image(), url: 'http://127.0.0.1/a.jpg' }] }),
        )
      ).message,
    ).toMatch(/CONTENT_PUBLIC_URL/);
    expect(fake.requests.length).toBe(before);
    await th.publish({ accessToken, parts: [`${'a'.repeat(496)}🙂`] });
    expect(fake.violations).toEqual([]);
  });

  it('checks the 250-posts-a-day limit before creating anything', async () => {
    const { accessToken } = await connect();
    fake.setQuotaUsage(250);
    const err = await rejection(th.publish({ accessToken, parts: ['x'] }));
    expect(err.kind).toBe('rate_limited');
    expect(err.message).toMatch(/250 published posts per 24 hours/);
    expect(fake.containers.size).toBe(0);
  });
});

describe('Threads provider: status, insights, replies', () => {
  it('reads status and says when a post is gone', async () => {
    const { accessToken } = await connect();
    const { externalId } = await th.publish({ accessToken, parts: ['Still there?'] });
    expect(await th.status({ accessToken, externalId })).toEqual({
      externalId,
      exists: true,
      text: 'Still there?',
    });
    fake.posts.delete(externalId);
    expect(await th.status({ accessToken, externalId })).toEqual({ externalId, exists: false, text: null });
    const before = fake.requests.length;
    for (const bad of ['../me', '1/replies', '']) {
      expect((await rejection(th.status({ accessToken, externalId: bad }))).kind).toBe('invalid');
      expect((await rejection(th.metrics({ accessToken, externalId: bad }))).kind).toBe('invalid');
      expect((await rejection(th.replies?.({ accessToken, externalId: bad }) as Promise<unknown>)).kind).toBe(
        'invalid',
      );
    }
    expect(fake.requests.length).toBe(before);
    expect(fake.violations).toEqual([]);
  });

  it('maps insights: views → impressions, replies → comments, reposts + quotes + shares → shares', async () => {
    const { accessToken } = await connect();
    const { externalId } = await th.publish({ accessToken, parts: ['Count me.'] });
    Object.assign(fake.posts.get(externalId)?.insights ?? {}, {
      views: 600,
      likes: 30,
      replies: 5,
      reposts: 3,
      quotes: 2,
      shares: 1,
    });
    expect(await th.metrics({ accessToken, externalId })).toEqual({
      impressions: 600,
      likes: 30,
      comments: 5,
      shares: 6,
      clicks: 0,
    });
    expect(fake.violations).toEqual([]);
  });

  it('reads replies', async () => {
    const { accessToken } = await connect();
    const { externalId } = await th.publish({ accessToken, parts: ['Ask me.'] });
    fake.posts.get(externalId)?.replies.push({
      id: '18001',
      text: 'Too pricey for me',
      username: 'jo',
      timestamp: '2026-11-23T14:00:00+0000',
    });
    expect(await th.replies?.({ accessToken, externalId })).toEqual([
      {
        externalId: '18001',
        author: 'jo',
        text: 'Too pricey for me',
        createdAt: new Date('2026-11-23T14:00:00Z'),
      },
    ]);
    expect(fake.violations).toEqual([]);
  });
});

describe('Threads provider: failures', () => {
  it('an expired token is token_expired', async () => {
    const tokens = await connect();
    fake.expire(tokens.accessToken);
    expect((await rejection(th.publish({ accessToken: tokens.accessToken, parts: ['x'] }))).kind).toBe(
      'token_expired',
    );
  });

  it('429 on publish is rate_limited with the retry time, and nothing is out', async () => {
    const { accessToken } = await connect();
    fake.failNext('POST /:user/threads_publish', {
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '60' },
    });
    const err = await rejection(th.publish({ accessToken, parts: ['x'] }));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAt?.getTime()).toBe(NOW.getTime() + 60_000);
    expect(err.publishedIds).toEqual([]);
  });

  it('a thread that stops midway is OUTCOME UNKNOWN and says which parts are out; nothing is resent', async () => {
    const { accessToken } = await connect();
    fake.failNext('POST /:user/threads_publish', { kind: 'hang', afterAccept: true }, { after: 1 });
    const err = await rejection(hasty.publish({ accessToken, parts: ['One', 'Two', 'Three'] }));
    expect(err.kind).toBe('outcome_unknown');
    expect(texts()).toEqual(['One', 'Two']);
    expect(err.publishedIds).toEqual([[...fake.posts.keys()][0]]);
    expect(fake.requests.filter((r) => r.endsWith('/threads_publish'))).toHaveLength(2);
  });
});

describe('Threads provider: continuing a thread cut short', () => {
  it('with alreadyPublished, sends only the rest, the next part replying to the last one out, images not again', async () => {
    const { accessToken } = await connect();
    fake.failNext('POST /:user/threads_publish', { kind: 'status', status: 503 }, { after: 1 });
    const parts = ['One', 'Two', 'Three'];
    const err = await rejection(th.publish({ accessToken, parts, media: [image()] }));
    expect(err.kind).toBe('outcome_unknown');
    expect(err.publishedIds).toHaveLength(1);
    const res = await th.publish({ accessToken, parts, alreadyPublished: err.publishedIds });
    expect(res.externalIds.slice(0, 1)).toEqual(err.publishedIds);
    const [a, b, c] = res.externalIds.map((id) => fake.posts.get(id));
    expect(a).toMatchObject({ text: 'One', mediaType: 'IMAGE' });
    expect(b).toMatchObject({ text: 'Two', replyTo: a?.id });
    expect(c).toMatchObject({ text: 'Three', replyTo: b?.id });
    expect(texts()).toEqual(['One', 'Two', 'Three']);
    expect(fake.violations).toEqual([]);
  });
});

describe('the Threads fake follows the reference pages', () => {
  it('refuses and records a reply to a post that does not exist, a missing media_type, and an unversioned call', async () => {
    const { accessToken } = await connect();
    const post = (body: Record<string, string>, path = `/v1.0/${fake.user.id}/threads`) =>
      fetch(`${fake.url}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams(body).toString(),
      });
    expect((await post({ media_type: 'TEXT', text: 'hi', reply_to_id: '42' })).status).toBe(400);
    expect((await post({ text: 'hi' })).status).toBe(400);
    expect((await post({ media_type: 'TEXT', text: 'hi' }, `/${fake.user.id}/threads`)).status).toBe(400);
    expect(fake.violations).toHaveLength(3);
    expect(fake.violations.join('\n')).toMatch(/reply_to_id 42[\s\S]*media_type[\s\S]*version/);
    expect(fake.containers.size).toBe(0);
  });
});
