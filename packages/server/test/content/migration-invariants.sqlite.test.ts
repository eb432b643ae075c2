import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../src/platform/db/sqlite.js';
import { rewindContentSchema } from '../helpers/content-rewind.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeDraft } from './helpers.js';

const HOUR = 3_600_000;

/**
 * Migration 007 on a database written before it, holding the duplicates the races could leave:
 * two scheduled posts in one hour of a channel, and two pending approvals of one draft.
 */
describe('migration 007 on a database that already holds duplicates', () => {
  let svc: TestService;
  let brand: { id: string; channels: Record<string, string> };
  const notes: string[] = [];
  const ids = { keptPost: '', extraPost: '', keptApproval: '', extraApproval: '', draft: '' };
  const raw = () => ((svc.handle as unknown as { ctx: ContentContext }).ctx.db as SqliteDatabase).raw;

  beforeAll(async () => {
    svc = await startTestService('content');
    brand = await makeBrand(svc);
    const now = (svc.handle as unknown as { ctx: ContentContext }).ctx.clock.now().getTime();
    const hour = new Date(Math.floor(now / HOUR) * HOUR + 5 * HOUR);
    const post = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'Held the hour first.', scheduled_for: hour.toISOString() },
    });
    ids.keptPost = post.body.id;
    ids.draft = await makeDraft(svc, brand.id, 'x', 'A draft proposed twice.');
    const approval = await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: ids.draft } });
    ids.keptApproval = approval.body.id;

    // Back to the schema before 007 (undoing the later migrations too, so 007 runs again), then
    // the duplicates, written later than the originals.
    const db = raw();
    rewindContentSchema(db, 7);
    ids.extraPost = `${ids.keptPost}dup`;
    ids.extraApproval = `${ids.keptApproval}dup`;
    const later = new Date(now + 60_000).toISOString();
    db.prepare(
      `INSERT INTO posts SELECT ? AS id, brand_id, channel_id, platform, draft_id, draft_version, idea_id, status,
              parts, ?, published_at, sort_at, permalink, external_id, failure, settled_at, ?, updated_at,
              retry_at, external_ids, notice FROM posts WHERE id = ?`,
    ).run(ids.extraPost, new Date(hour.getTime() + 30 * 60_000).toISOString(), later, ids.keptPost);
    db.prepare(
      `INSERT INTO approvals SELECT ? AS id, brand_id, draft_id, draft_version, channel_id, slot, reason, voice_check,
              status, pending_rank, decided_at, decided_by, decision_reason, post_id, run_id, source, key_id,
              person_id, ?, updated_at FROM approvals WHERE id = ?`,
    ).run(ids.extraApproval, later, ids.keptApproval);

    await openSqliteDatabase(join(svc.dataDir, 'content.sqlite'), contentMigrations, {
      log: (m) => notes.push(m),
    }).close();
  });
  afterAll(() => svc.close());

  it('keeps both posts scheduled: the first holds the hour, the other keeps its time with a notice, and says so in the log', async () => {
    const kept = await api(svc.url, 'GET', `/v1/posts/${ids.keptPost}`);
    const extra = await api(svc.url, 'GET', `/v1/posts/${ids.extraPost}`);
    expect(kept.body).toMatchObject({ status: 'scheduled', notice: null });
    expect(extra.body.status).toBe('scheduled');
    expect(extra.body.notice).toContain(ids.keptPost);
    const slots = raw()
      .prepare('SELECT id, slot_hour FROM posts WHERE id IN (?, ?) ORDER BY id')
      .all(ids.keptPost, ids.extraPost);
    expect(slots).toEqual([
      { id: ids.keptPost, slot_hour: expect.stringMatching(/T\d\d:00:00\.000Z$/) },
      { id: ids.extraPost, slot_hour: null },
    ]);
    expect(notes.some((n) => n.includes(ids.extraPost) && n.includes('migration 7'))).toBe(true);
  });

  it('keeps the first pending approval of the draft and rejects the second with a reason naming the first', async () => {
    expect((await api(svc.url, 'GET', `/v1/approvals/${ids.keptApproval}`)).body.status).toBe('pending');
    const extra = await api(svc.url, 'GET', `/v1/approvals/${ids.extraApproval}`);
    expect(extra.body).toMatchObject({ status: 'rejected', decided_by: 'system' });
    expect(extra.body.decision_reason).toContain(ids.keptApproval);
    expect(notes.some((n) => n.includes(ids.extraApproval))).toBe(true);
  });

  it('from then on the schema refuses a second post in the hour and a second pending approval of the draft', () => {
    const db = raw();
    const slot = (
      db.prepare('SELECT slot_hour FROM posts WHERE id = ?').get(ids.keptPost) as { slot_hour: string }
    ).slot_hour;
    expect(() => db.prepare('UPDATE posts SET slot_hour = ? WHERE id = ?').run(slot, ids.extraPost)).toThrow(
      /UNIQUE constraint failed: posts.channel_id, posts.slot_hour/,
    );
    expect(() =>
      db.prepare("UPDATE approvals SET status = 'pending' WHERE id = ?").run(ids.extraApproval),
    ).toThrow(/UNIQUE constraint failed: approvals.draft_id/);
  });
});
