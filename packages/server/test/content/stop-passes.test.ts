import { afterEach, describe, expect, it } from 'vitest';
import { openContentDatabase } from '../../src/content/db/open.js';
import { ManualClock } from '../../src/platform/clock.js';
import { watchClose } from '../helpers/close-watch.js';
import { connectLive, startLive } from '../helpers/live.js';
import { loggedLines } from '../helpers/logged-lines.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand } from './helpers.js';
import { gate, handle, until } from './instances-beside.js';

/**
 * A stop begins with `stopping()` (before the HTTP server drains, which lasts as long as the
 * slowest request), then `close()` closes the database. Content's background pass used to run
 * on through the drain: its 30 s timer went on until close(), so a pass could start publishing
 * scheduled posts after SIGTERM, and the process manager's kill at the end of its grace left them
 * mid-publish (unconfirmed). And close() did not wait for a pass already running: it closed the
 * database between the platform's answer and its record, the same unconfirmed post. Through the
 * app handle and `listen()`'s stop, which is what `svc-server start` runs on SIGTERM.
 */

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

const HOUR = 3_600_000;
const log = loggedLines('info');

/** A post on `channelId` scheduled an hour from the service clock's now. */
async function scheduled(svc: TestService, channelId: string, text: string): Promise<string> {
  const when = new Date(svc.clock.now().getTime() + HOUR).toISOString();
  const post = await api(svc.url, 'POST', '/v1/posts', {
    body: { channel_id: channelId, text, scheduled_for: when },
  });
  expect(post.status, JSON.stringify(post.body)).toBe(201);
  expect(post.body.status).toBe('scheduled');
  return post.body.id;
}

describe('content background passes during a stop', { timeout: 30_000 }, () => {
  it('start no more once the stop has begun: a post due then stays scheduled', async () => {
    const svc = await startTestService('content', { clock: new ManualClock(), config: { seed: 'none' } });
    closing.push(() => svc.close());
    const brand = await makeBrand(svc, { channels: ['x'] });
    const id = await scheduled(svc, brand.channels.x as string, 'Due during the drain.');
    svc.clock.advance(2 * HOUR);

    handle(svc).stopping?.();
    // What the background timer runs every 30 s, as it would come due during the drain.
    expect(await handle(svc).backgroundPass()).toBe(false);
    const post = await api(svc.url, 'GET', `/v1/posts/${id}`);
    expect(post.body.status).toBe('scheduled');
    expect(await handle(svc).db.all('SELECT id FROM publish_attempts')).toEqual([]);
  });

  it('close() waits for the pass in flight: its publish is recorded, and it claims no further post', async () => {
    const stack = await startLive({ clock: new ManualClock(), config: { seed: 'none' }, logger: log.logger });
    closing.push(() => stack.close());
    const svc = stack.svc;
    const brand = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } });
    const channelId = (await connectLive(svc, brand.body.id, 'x')).id;
    const first = await scheduled(svc, channelId, 'Out as the stop begins.');
    // One post an hour per channel: the second is due an hour after the first.
    svc.clock.advance(HOUR);
    const second = await scheduled(svc, channelId, 'Due in the same pass, after it.');
    svc.clock.advance(2 * HOUR);

    const held = gate();
    stack.x.failNext('POST /2/tweets', { kind: 'hold', until: held.until });
    const pass = handle(svc)
      .backgroundPass()
      .catch((err: Error) => err.message);
    await until(() => stack.x.requests.includes('POST /2/tweets'));

    const watch = watchClose(handle(svc).db, log.saying);
    const stopped = svc.stop();
    expect(await watch.reached()).toBe('waiting');
    held.open();
    await stopped;
    const passed = await pass;

    const db = await openContentDatabase(svc.config);
    closing.push(() => db.close());
    const status = async (id: string) =>
      (await db.get<{ status: string }>('SELECT status FROM posts WHERE id = ?', [id]))?.status;
    expect(await status(first)).toBe('published');
    expect(await db.all('SELECT outcome FROM publish_attempts WHERE post_id = ?', [first])).toEqual([
      { outcome: 'published' },
    ]);
    // Untouched, for the next pass on any instance.
    expect(await status(second)).toBe('scheduled');
    expect(await db.all('SELECT id FROM publish_attempts WHERE post_id = ?', [second])).toEqual([]);
    expect(stack.x.requests.filter((r) => r === 'POST /2/tweets')).toHaveLength(1);
    expect(passed).toBe(true);
  });

  it('a publish finished during the stop hands its event to no automation: it waits, unclaimed, for the next pass', async () => {
    const stack = await startLive({ clock: new ManualClock(), config: { seed: 'none' }, logger: log.logger });
    closing.push(() => stack.close());
    const svc = stack.svc;
    const brand = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } });
    const channelId = (await connectLive(svc, brand.body.id, 'x')).id;
    const automation = await api(svc.url, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.body.id,
        name: 'Digest on publish',
        agent_id: 'digest',
        trigger: { type: 'event', event: 'post.published' },
      },
    });
    expect(automation.status, JSON.stringify(automation.body)).toBe(201);
    const id = await scheduled(svc, channelId, 'Out as the stop begins.');
    svc.clock.advance(2 * HOUR);

    const held = gate();
    stack.x.failNext('POST /2/tweets', { kind: 'hold', until: held.until });
    const pass = handle(svc)
      .backgroundPass()
      .catch((err: Error) => err.message);
    await until(() => stack.x.requests.includes('POST /2/tweets'));
    const stopped = svc.stop();
    await until(() => log.saying('in flight to finish').length > 0);
    held.open();
    await stopped;
    expect(await pass).toBe(true);

    const db = await openContentDatabase(svc.config);
    closing.push(() => db.close());
    expect(await db.get('SELECT status FROM posts WHERE id = ?', [id])).toEqual({ status: 'published' });
    // Recorded with the publish (the outbox), not delivered: no agent ran during the stop.
    expect(
      await db.all('SELECT name, done_at, lease_owner FROM content_events WHERE post_id = ?', [id]),
    ).toEqual([{ name: 'post.published', done_at: null, lease_owner: null }]);
    expect(await db.all('SELECT id FROM agent_runs')).toEqual([]);
  });

  it('a publish waiting on a Meta container (Threads, Instagram) gives up as the stop begins: close() does not wait out the checks', async () => {
    const stack = await startLive({ clock: new ManualClock(), config: { seed: 'none' }, logger: log.logger });
    closing.push(() => stack.close());
    const svc = stack.svc;
    const brand = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } });
    const channelId = (await connectLive(svc, brand.body.id, 'threads')).id;
    const id = await scheduled(svc, channelId, 'Out as the stop begins.');
    svc.clock.advance(2 * HOUR);

    // Threads keeps the container in progress: svc checks it up to 30 times, 2 s apart.
    stack.threads.nextContainerStates(['IN_PROGRESS']);
    const pass = handle(svc)
      .backgroundPass()
      .catch((err: Error) => err.message);
    const checks = () => {
      const [container] = [...stack.threads.containers.keys()];
      return stack.threads.requests.filter((r) => container && r.endsWith(`/${container}`)).length;
    };
    await until(() => checks() >= 1);
    const stopped = svc.stop();
    // The old wait took no signal: close() waited while the checks went on.
    const first = await Promise.race([
      stopped.then(() => 'stopped'),
      until(() => checks() >= 3).then(() => 'checked on'),
    ]);
    expect(first).toBe('stopped');
    expect(await pass).toBe(true);

    const db = await openContentDatabase(svc.config);
    closing.push(() => db.close());
    const post = await db.get<{ status: string; retry_at: string | null; notice: string }>(
      'SELECT status, retry_at, notice FROM posts WHERE id = ?',
      [id],
    );
    expect(post).toMatchObject({ status: 'scheduled', retry_at: expect.any(String) });
    expect(post?.notice).toMatch(/svc stopped while Threads was still processing the media container/);
    expect(stack.threads.posts.size).toBe(0);
  });
});
