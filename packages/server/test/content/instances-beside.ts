import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterEach, expect, vi } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import { secretBox } from '../../src/content/services/channel-credentials.js';
import { ManualClock } from '../../src/platform/clock.js';
import { createSecretBox } from '../../src/platform/crypto/secret-box.js';
import { connectLive, type LiveStack, startLive } from '../helpers/live.js';
import { api, sameDatabase, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand } from './helpers.js';

/**
 * Content instances side by side on ONE database and data directory, as several `svc-server
 * start` processes on one database would be, for tests of what must hold across instances. Call
 * at the top of a test file: whatever a test starts is closed after it.
 */
export function instancesBeside(opts: { workLeaseMs?: number } = {}) {
  const lease = opts.workLeaseMs ? { workLeaseMs: opts.workLeaseMs } : {};
  const started: (() => Promise<void>)[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    // The second instance first: the first one owns the data directory and the database.
    for (const close of started.splice(0).reverse()) await close();
  });

  /** A second content instance on `first`'s data directory and database, with its settings. */
  async function beside(first: TestService): Promise<TestService> {
    const second = await startTestService('content', {
      clock: first.clock,
      dataDir: first.dataDir,
      config: { ...first.config, ...sameDatabase(first) },
      ...lease,
    });
    await handle(second).ready;
    started.push(() => second.stop());
    return second;
  }

  return {
    beside,
    /** A first content instance (sandbox, no demo seed), closed after the test. */
    async first(): Promise<TestService> {
      const a = await startTestService('content', { config: { seed: 'none' }, ...lease });
      started.push(() => a.close());
      return a;
    },
    /** Two live instances and an X channel connected through the first. */
    async twoLive(): Promise<{ stack: LiveStack; a: TestService; b: TestService; channelId: string }> {
      const stack = await startLive({ clock: new ManualClock(), config: { seed: 'none' }, ...lease });
      started.push(() => stack.close());
      const a = stack.svc;
      const brand = await api(a.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } });
      const channelId = (await connectLive(a, brand.body.id, 'x')).id;
      return { stack, a, b: await beside(a), channelId };
    },
    /** Closes `close` after the test, before the instances started before it. */
    track(close: () => Promise<void>): void {
      started.push(close);
    },
  };
}

export const handle = (s: TestService) => s.handle as ContentHandle;

/** A promise the test settles by hand: what a held platform answer waits for. */
export function gate() {
  let open!: () => void;
  const until = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { until, open };
}

/** Waits until `what` holds, looking every 10 ms (`what` may read the database). */
export const until = async (what: () => boolean | Promise<boolean>) => {
  while (!(await what())) await new Promise((r) => setTimeout(r, 10));
};

/**
 * The channel's access token now expires within five minutes, so a publish refreshes it first,
 * and X holds the next refresh until `open()`. `refreshes()` counts the refreshes X got since.
 */
export function nextRefreshHeld(stack: LiveStack, clock: ManualClock) {
  const tokenCalls = () => stack.x.requests.filter((r) => r === 'POST /2/oauth2/token').length;
  const before = tokenCalls();
  clock.advance(2 * 3_600_000);
  const held = gate();
  stack.x.failNext('POST /2/oauth2/token', { kind: 'hold', until: held.until });
  return { refreshes: () => tokenCalls() - before, open: held.open };
}

/** POST /v1/posts through `svc`: the text, published now on the channel. */
export const publishNow = (svc: TestService, channelId: string, text: string) =>
  api(svc.url, 'POST', '/v1/posts', { body: { channel_id: channelId, text } });

/** Uploads a 1600×900 PNG to a new brand through `svc` and returns the asset's id. */
export async function uploadChart(svc: TestService): Promise<string> {
  const brand = await makeBrand(svc);
  const png = await sharp({ create: { width: 1600, height: 900, channels: 3, background: '#3366aa' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'chart.png');
  const up = await fetch(`${svc.url}/v1/brands/${brand.id}/media`, { method: 'POST', body: form });
  expect(up.status).toBe(201);
  return ((await up.json()) as { id: string }).id;
}

/** The render revision in a crop's URL (`square.3.jpg` → '3'). */
export const revOf = (r: { body: any }) => /\.(\d+)\.jpg$/.exec(r.body.variants.square.url)?.[1];

/** What the database holds for the channel's tokens, opened with the service's key (null: none). */
export async function storedTokens(svc: TestService, channelId: string) {
  const ctx = handle(svc).ctx;
  const row = await ctx.db.get<{ access_token: string; refresh_token: string }>(
    'SELECT * FROM channel_credentials WHERE channel_id = ?',
    [channelId],
  );
  if (!row) return null;
  const box = secretBox(ctx);
  return {
    access: box.open(row.access_token, `channel_credentials:${channelId}:access_token`),
    refresh: box.open(row.refresh_token, `channel_credentials:${channelId}:refresh_token`),
  };
}

/**
 * `svc`'s next read of a channel's tokens (outside a transaction) reads them, then waits for
 * `go()` before `svc` goes on, as an instance stalled right after its read would (a GC pause, a
 * busy event loop). `read()` resolves once it has read. Undone after the test.
 */
export function nextTokenReadStalled(svc: TestService) {
  const store = handle(svc).ctx.stores.channelCredentials;
  const get = store.get.bind(store);
  const held = gate();
  let read = false;
  vi.spyOn(store, 'get').mockImplementationOnce(async (channelId: string) => {
    const row = await get(channelId);
    read = true;
    await held.until;
    return row;
  });
  return { read: () => until(() => read), go: held.open };
}

/** The channel's access token, sealed with a key this server does not have (the key changed). */
export async function sealedWithAnotherKey(svc: TestService, channelId: string) {
  const other = createSecretBox(randomBytes(32));
  await handle(svc).ctx.db.run('UPDATE channel_credentials SET access_token = ? WHERE channel_id = ?', [
    other.seal('token-under-the-old-key', `channel_credentials:${channelId}:access_token`),
    channelId,
  ]);
}
