import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import { MODEL_ANSWER_MAX_BYTES } from '../../src/content/model/chat-completions.js';
import { ANSWER_MAX_BYTES, TOKEN_ANSWER_MAX_BYTES } from '../../src/content/publishers/answer-caps.js';
import { tick } from '../../src/content/services/sandbox.js';
import { ManualClock } from '../../src/platform/clock.js';
import { FEED_CHARS, OUTSIDE_JSON_MAX_DEPTH, WHOLE_PARSE_CHARS } from '../../src/platform/sliced/json.js';
import { readerWork, SLICE_UNITS } from '../../src/platform/sliced/work.js';
import { CHUNK_BYTES, type HostileFront, startHostileFront } from '../fakes/hostile-front.js';
import { type OpenAiFake, startOpenAiFake } from '../fakes/openai-fake.js';
import { connectLive, type LiveStack, startLive } from '../helpers/live.js';
import { watchSlices } from '../helpers/slice-watch.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeIdea } from './helpers.js';

/*
 * What a platform (or the model server) answers is outside input: the content service reads at
 * most a cap of it (content/publishers/answer-caps.ts, MODEL_ANSWER_MAX_BYTES) and parses JSON
 * over 64 KiB in slices with a nesting bound (platform/sliced/json.ts). A hostile front sits at the
 * configured URL before the fake and answers one scripted call badly; every other call reaches
 * the fake. Counted (bytes sent, the parser's pauses and steps), never timed.
 */

const X_CAP = ANSWER_MAX_BYTES.x;
/**
 * What the front may get out past the cap before it sees the close: what the sockets' buffers
 * held (about 3 MiB on loopback here). The old code read on until its deadline, gigabytes.
 */
const BUFFERED_SLACK = 64 * 1024 * 1024;
/** A nesting far past the bound that still fits under the cap, so only the depth refuses it. */
const deepJson = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

describe('X answers, read within bounds, over HTTP', () => {
  let front: HostileFront;
  let live: LiveStack;
  let brandId: string;
  let channelId: string;

  beforeEach(async () => {
    front = await startHostileFront();
    live = await startLive({ clock: new ManualClock(), apiUrlOf: { x: (url) => front.forwardTo(url) } });
    brandId = (await api(live.svc.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } })).body.id;
    channelId = (await connectLive(live.svc, brandId, 'x')).id;
  });
  afterEach(async () => {
    await live?.close();
    await front?.close();
  });

  const publishNow = (text: string) =>
    api(live.svc.url, 'POST', '/v1/posts', { body: { channel_id: channelId, text } });
  const tweetsPosted = () => live.x.requests.filter((r) => r === 'POST /2/tweets').length;

  /** The server answers, and the post reads back as the publish left it: nothing half-written. */
  async function stillServes(postId: string, status: string) {
    expect((await api(live.svc.url, 'GET', '/health')).status).toBe(200);
    const after = await api(live.svc.url, 'GET', `/v1/posts/${postId}`);
    expect(after.status).toBe(200);
    expect(after.body.status).toBe(status);
  }

  it('refuses a declared Content-Length over the cap before reading it; the post is unconfirmed', async () => {
    // X stored the post, then declared a 1 GB answer: the post may be live, so it is unconfirmed.
    front.script('POST /2/tweets', { kind: 'declared', bytes: 1_000_000_000 }, { forward: true });
    const res = await publishNow('Declared a gigabyte.');
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('unconfirmed');
    expect(res.body.notice).toContain('PUBLISH_UNCONFIRMED');
    expect(res.body.notice).toContain(`X answered 200 to POST /2/tweets with more than ${X_CAP} bytes`);
    // The reader hung up without waiting for the body (the front sent one chunk and waits).
    expect(await front.served[0]?.closed).toBe(true);
    expect(front.served[0]?.bytesSent).toBe(CHUNK_BYTES);
    expect(tweetsPosted()).toBe(1);
    await stillServes(res.body.id, 'unconfirmed');
  });

  it('cuts off a chunked answer that never ends at the cap; the upload is tried again later', async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'chart.png');
    const asset = await fetch(`${live.svc.url}/v1/brands/${brandId}/media`, { method: 'POST', body: form });
    const draft = await api(live.svc.url, 'POST', '/v1/drafts', {
      body: { brand_id: brandId, platform: 'x', text: 'An endless upload answer.' },
    });
    await api(live.svc.url, 'POST', `/v1/drafts/${draft.body.id}/media`, {
      body: { asset_id: ((await asset.json()) as { id: string }).id },
    });
    front.script('POST /2/media/upload', { kind: 'endless' });
    const res = await api(live.svc.url, 'POST', '/v1/posts', { body: { draft_id: draft.body.id } });
    expect(res.status).toBe(201);
    // A call that changes nothing: the platform is broken for now, so the post waits and retries.
    expect(res.body.status).toBe('scheduled');
    expect(res.body.retry_at).not.toBeNull();
    expect(res.body.notice).toContain('PLATFORM_UNAVAILABLE');
    expect(res.body.notice).toContain(`X answered 200 to POST /2/media/upload with more than ${X_CAP} bytes`);
    expect(tweetsPosted()).toBe(0);
    // The reader closed the connection: the front stopped pouring. It got past the cap, and what it
    // sent beyond is only what the sockets' buffers held (the old code read until its deadline).
    expect(await front.served[0]?.closed).toBe(true);
    expect(front.served[0]?.bytesSent).toBeGreaterThan(X_CAP);
    expect(front.served[0]?.bytesSent).toBeLessThan(X_CAP + BUFFERED_SLACK);
    await stillServes(res.body.id, 'scheduled');

    // The next pass finds X well again (the front passes everything through): one post goes out.
    live.svc.clock.advance(60_000);
    expect((await tick((live.svc.handle as ContentHandle).ctx)).published).toEqual([res.body.id]);
    expect(live.x.tweets.size).toBe(1);
  });

  it('holds a token refresh to the small token cap: the post waits, the channel stays connected', async () => {
    // Within five minutes of the token's expiry, a publish refreshes it first.
    const [row] = await (live.svc.handle as ContentHandle).ctx.db.all<{ expires_at: string }>(
      'SELECT expires_at FROM channel_credentials WHERE channel_id = ?',
      [channelId],
    );
    live.svc.clock.set(Date.parse(row?.expires_at as string) - 4 * 60_000);
    front.script('POST /2/oauth2/token', { kind: 'declared', bytes: TOKEN_ANSWER_MAX_BYTES + 1 });
    const res = await publishNow('After a refresh too large to read.');
    expect(res.status).toBe(201);
    // No answer from the token endpoint says nothing of the grant: the post is tried again later.
    expect(res.body.status).toBe('scheduled');
    expect(res.body.notice).toContain(
      `with more than ${TOKEN_ANSWER_MAX_BYTES} bytes (the most read from X's token endpoint)`,
    );
    // Refused from its declared length, a byte over the token cap and far under X's own.
    expect(await front.served[0]?.closed).toBe(true);
    expect(front.served[0]?.bytesSent).toBe(CHUNK_BYTES);
    expect(tweetsPosted()).toBe(0);
    expect((await api(live.svc.url, 'GET', `/v1/channels/${channelId}`)).body.status).toBe('connected');
    await stillServes(res.body.id, 'scheduled');
  });

  it('refuses deeply nested JSON at the bound, without parsing the rest; the post is unconfirmed', async () => {
    const deep = deepJson(480_000);
    expect(deep.length).toBeLessThan(X_CAP);
    front.script('POST /2/tweets', { kind: 'text', text: deep }, { forward: true });
    const slices = watchSlices();
    const before = readerWork.units;
    const res = await publishNow('Answered with a deep pit.');
    expect(res.body.status).toBe('unconfirmed');
    expect(res.body.notice).toContain('PUBLISH_UNCONFIRMED');
    expect(res.body.notice).toContain(`with JSON nested more than ${OUTSIDE_JSON_MAX_DEPTH} levels deep`);
    // The streaming parser stopped in its first slice, at the 65th bracket.
    expect(readerWork.units - before).toBeLessThanOrEqual(FEED_CHARS);
    expect(slices.yields).toBe(0);
    await stillServes(res.body.id, 'unconfirmed');
  });

  it('parses a large valid answer in slices while /health keeps answering; the post is published', async () => {
    const pad = Array.from({ length: 11_000 }, (_, i) => ({ id: `${i}`, note: 'padding'.repeat(8) }));
    const size = JSON.stringify(pad).length;
    expect(size).toBeGreaterThan(X_CAP * 0.75);
    expect(size).toBeLessThan(X_CAP - 1024);
    front.script('POST /2/tweets', { kind: 'padded', pad });
    // At the parser's first pause, ask for /health; note how many pauses it had taken when the
    // answer came. Answered before the parse ended means the loop was not held by it.
    let health: Promise<{ status: number; atPause: number }> | null = null;
    const slices = watchSlices((yields) => {
      if (yields === 1)
        health = api(live.svc.url, 'GET', '/health').then((r) => ({
          status: r.status,
          atPause: slices.yields,
        }));
    });
    const res = await publishNow('A padded answer.');
    expect(res.body.status).toBe('published');
    expect(res.body.permalink).toMatch(/\/status\/\d+$/);
    expect(front.served[0]?.bytesSent).toBeGreaterThan(WHOLE_PARSE_CHARS);
    expect(slices.yields).toBeGreaterThan(size / FEED_CHARS / 2);
    expect(slices.longestSlice).toBeLessThanOrEqual(2 * SLICE_UNITS);
    expect(health).not.toBeNull();
    const answered = await (health as unknown as Promise<{ status: number; atPause: number }>);
    expect(answered.status).toBe(200);
    expect(answered.atPause).toBeLessThan(slices.yields);
    expect(live.x.tweets.size).toBe(1);
    expect(live.x.violations).toEqual([]);
  });
});

describe('model server answers, read within bounds, over HTTP', () => {
  let front: HostileFront;
  let fake: OpenAiFake;
  let svc: TestService;

  beforeEach(async () => {
    front = await startHostileFront();
    fake = await startOpenAiFake({ respond: () => JSON.stringify({ parts: ['A plain post.'] }) });
    svc = await startTestService('content', {
      config: { model: 'real', realModel: { baseUrl: front.forwardTo(fake.baseUrl), name: 'test-model' } },
    });
  });
  afterEach(async () => {
    await svc?.close();
    await fake?.close();
    await front?.close();
  });

  const generate = async () => {
    const brand = await makeBrand(svc);
    return api(svc.url, 'POST', '/v1/drafts/generate', {
      body: { idea_id: await makeIdea(svc, brand.id), platforms: ['x'] },
    });
  };

  it('cuts off an endless answer at the cap with a clear 502, and the server still serves', async () => {
    front.script('POST /v1/chat/completions', { kind: 'endless' });
    const res = await generate();
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('MODEL_BAD_OUTPUT');
    expect(res.body.error.message).toContain(`with more than ${MODEL_ANSWER_MAX_BYTES} bytes`);
    expect(await front.served[0]?.closed).toBe(true);
    expect(front.served[0]?.bytesSent).toBeLessThan(MODEL_ANSWER_MAX_BYTES + BUFFERED_SLACK);
    expect((await api(svc.url, 'GET', '/health')).status).toBe(200);
    // The model is well again: the next generation works.
    expect((await generate()).status).toBe(201);
  });

  it('refuses deeply nested JSON with a clear 502, without parsing the rest', async () => {
    front.script('POST /v1/chat/completions', { kind: 'text', text: deepJson(480_000) });
    const before = readerWork.units;
    const res = await generate();
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('MODEL_BAD_OUTPUT');
    expect(res.body.error.message).toContain(`nested more than ${OUTSIDE_JSON_MAX_DEPTH} levels deep`);
    expect(readerWork.units - before).toBeLessThanOrEqual(FEED_CHARS);
    expect((await api(svc.url, 'GET', '/health')).status).toBe(200);
  });
});
