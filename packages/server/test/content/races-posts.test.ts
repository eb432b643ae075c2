import { describe, expect, it } from 'vitest';
import { postsStore } from '../../src/content/db/stores/posts-store.js';
import { publishPosts } from '../../src/content/services/posts.js';
import { interleave, settledValue } from '../helpers/race.js';
import { api, type TestService } from '../helpers/start.js';
import { makeDraft, twoInstancesWithBrand } from './helpers.js';
import { ctxOf } from './mcp-helpers.js';

const HOUR = 3_600_000;

/**
 * Races between requests on two instances of the content service (two handles on one SQLite
 * file, each with its own gate), interleaved by `interleave`: the second request does its reads,
 * the first runs its transaction to the end, then the second writes. Each test names the race
 * and asserts the invariant the database now holds.
 */
describe('posts and approvals under concurrent requests on two instances', () => {
  const pair = twoInstancesWithBrand();

  /** An hour on the hour, `hours` from now on the service's clock, plus `minutes`. */
  const hourFromNow = (hours: number, minutes = 0) => {
    const now = ctxOf(pair.a).clock.now().getTime();
    return new Date(Math.floor(now / HOUR) * HOUR + hours * HOUR + minutes * 60_000).toISOString();
  };
  const schedule = (svc: TestService, at: string, text: string) =>
    api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: pair.brand.channels.x, text, scheduled_for: at },
    });
  const scheduledOnX = async () =>
    (await api(pair.a.url, 'GET', `/v1/posts?channel_id=${pair.brand.channels.x}&status=scheduled`)).body
      .posts as {
      id: string;
      scheduled_for: string;
    }[];

  it('deleting a post the publishing tick claimed meanwhile is refused: the post is never deleted while it goes out', async () => {
    const { a, b } = pair;
    const post = await schedule(a, hourFromNow(5), 'Deleted or published? Only one of the two.');
    expect(post.status).toBe(201);
    const row = await postsStore(ctxOf(b).db).get(post.body.id);
    if (!row) throw new Error('post not stored');

    // Instance b's tick claims the post between instance a's read of its status and a's delete.
    const race = interleave(ctxOf(b).db, ctxOf(a).db);
    const [published, deleted] = await race.run(
      () => publishPosts(ctxOf(b), [row]),
      () => api(a.url, 'DELETE', `/v1/posts/${row.id}`),
    );
    expect(settledValue(published).published).toEqual([row.id]);
    expect(settledValue(deleted).status).toBe(409);
    expect(settledValue(deleted).body.error.code).toBe('POST_PUBLISHING');
    const after = await api(a.url, 'GET', `/v1/posts/${row.id}`);
    expect(after.status).toBe(200);
    expect(after.body.status).toBe('published');
  });

  it('editing a post the publishing tick claimed meanwhile is refused: what went out is what the post says', async () => {
    const { a, b } = pair;
    const post = await schedule(a, hourFromNow(6), 'The text that goes out.');
    const row = await postsStore(ctxOf(b).db).get(post.body.id);
    if (!row) throw new Error('post not stored');

    const race = interleave(ctxOf(b).db, ctxOf(a).db);
    const [, edited] = await race.run(
      () => publishPosts(ctxOf(b), [row]),
      () => api(a.url, 'PATCH', `/v1/posts/${row.id}`, { body: { text: 'A text that never went out.' } }),
    );
    expect(settledValue(edited).status).toBe(409);
    expect(settledValue(edited).body.error.code).toBe('POST_NOT_EDITABLE');
    const after = await api(a.url, 'GET', `/v1/posts/${row.id}`);
    expect(after.body).toMatchObject({ status: 'published', parts: [{ text: 'The text that goes out.' }] });
  });

  it('two posts scheduled into the same hour of a channel at once: one is scheduled, the other gets 409 SLOT_TAKEN', async () => {
    const { a, b } = pair;
    const hour = hourFromNow(8);
    const race = interleave(ctxOf(a).db, ctxOf(b).db);
    const [first, second] = await race.run(
      () => schedule(a, hour, 'First into the hour.'),
      () => schedule(b, hourFromNow(8, 30), 'Second into the same hour.'),
    );
    expect(settledValue(first).status).toBe(201);
    expect(settledValue(second).status).toBe(409);
    expect(settledValue(second).body.error.code).toBe('SLOT_TAKEN');
    const inHour = (await scheduledOnX()).filter(
      (p) => Math.floor(Date.parse(p.scheduled_for) / HOUR) * HOUR === Date.parse(hour),
    );
    expect(inHour.map((p) => p.id)).toEqual([settledValue(first).body.id]);
  });

  it('a post moved into an hour another request takes at the same time: one post holds the hour', async () => {
    const { a, b } = pair;
    const moving = await schedule(a, hourFromNow(10), 'I will move.');
    const target = hourFromNow(11);
    const race = interleave(ctxOf(a).db, ctxOf(b).db);
    const [created, moved] = await race.run(
      () => schedule(a, target, 'I take the hour.'),
      () =>
        api(b.url, 'PATCH', `/v1/posts/${moving.body.id}`, { body: { scheduled_for: hourFromNow(11, 15) } }),
    );
    expect(settledValue(created).status).toBe(201);
    expect(settledValue(moved).status).toBe(409);
    expect(settledValue(moved).body.error.code).toBe('SLOT_TAKEN');
    const inHour = (await scheduledOnX()).filter(
      (p) => Math.floor(Date.parse(p.scheduled_for) / HOUR) * HOUR === Date.parse(target),
    );
    expect(inHour).toHaveLength(1);
  });

  it('two drafts proposed for the same hour of a channel at once: one pending approval holds it', async () => {
    const { a, b, brand } = pair;
    const d1 = await makeDraft(a, brand.id, 'x', 'Proposal one for the hour.');
    const d2 = await makeDraft(a, brand.id, 'x', 'Proposal two for the hour.');
    const hour = hourFromNow(14);
    const propose = (svc: TestService, draftId: string) =>
      api(svc.url, 'POST', '/v1/approvals', {
        body: { draft_id: draftId, channel_id: brand.channels.x, proposed_for: hour },
      });
    const race = interleave(ctxOf(a).db, ctxOf(b).db);
    const [first, second] = await race.run(
      () => propose(a, d1),
      () => propose(b, d2),
    );
    expect(settledValue(first).status).toBe(201);
    expect(settledValue(second).status).toBe(409);
    expect(settledValue(second).body.error.code).toBe('SLOT_TAKEN');
    // The losing draft is still a plain draft, free to be proposed elsewhere.
    expect((await api(a.url, 'GET', `/v1/drafts/${d2}`)).body.status).toBe('draft');
    const pending = (await api(a.url, 'GET', `/v1/approvals?brand_id=${brand.id}&status=pending`)).body
      .approvals as {
      slot: string;
    }[];
    expect(pending.filter((p) => p.slot === hour)).toHaveLength(1);
  });
});
