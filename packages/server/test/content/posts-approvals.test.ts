import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeDraft, serviceWithBrand } from './helpers.js';

const HOUR = 3_600_000;

describe('posts and the sandbox clock', () => {
  const shared = serviceWithBrand();
  // The service runs on the sandbox clock (base clock + offset), which the tests advance.
  const future = (h: number) =>
    new Date((shared.svc.handle as any).ctx.clock.now().getTime() + h * HOUR).toISOString();

  it('publishes now in sandbox with a sandbox permalink', async () => {
    const { svc, brand } = shared;
    const res = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'Hello from the sandbox, nothing leaves.' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'published',
      sandbox: true,
      verdict: 'too_early',
      metrics: null,
    });
    expect(res.body.permalink).toMatch(/^https:\/\/sandbox\.svc\.local\/x\//);
  });

  it('schedules; the sandbox clock publishes it, grows snapshots and settles at 72 h', async () => {
    const { svc, brand } = shared;
    const draftId = await makeDraft(
      svc,
      brand.id,
      'linkedin',
      'What would you drop first: standups or status emails? We tried both.',
    );
    const at = future(5);
    const post = await api(svc.url, 'POST', '/v1/posts', { body: { draft_id: draftId, scheduled_for: at } });
    expect(post.body).toMatchObject({ status: 'scheduled', scheduled_for: at, published_at: null });
    expect((await api(svc.url, 'GET', `/v1/drafts/${draftId}`)).body.status).toBe('scheduled');
    const clash = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.linkedin, text: 'Same hour', scheduled_for: at },
    });
    expect(clash.body.error.code).toBe('SLOT_TAKEN');

    const a = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 4 } });
    expect(a.body.published).not.toContain(post.body.id);
    const b = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 8 } });
    expect(b.body.published).toContain(post.body.id);
    expect(b.body.snapshots).toBeGreaterThan(0);
    const mid = await api(svc.url, 'GET', `/v1/posts/${post.body.id}`);
    expect(mid.body.published_at).toBe(at);
    expect(mid.body.growth.map((g: any) => g.age_h)).toEqual([1, 3, 6]);
    const c = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { days: 4 } });
    expect(c.body.settled).toContain(post.body.id);
    const done = await api(svc.url, 'GET', `/v1/posts/${post.body.id}`);
    expect(done.body.growth.map((g: any) => g.age_h)).toEqual([1, 3, 6, 12, 24, 48, 72]);
    const imps = done.body.growth.map((g: any) => g.impressions);
    expect(imps).toEqual([...imps].sort((x: number, y: number) => x - y));
    expect(done.body.settled_at).not.toBeNull();
    expect(done.body.outcome.verdict).toBe('not_enough_data');
    expect((await api(svc.url, 'GET', `/v1/drafts/${draftId}`)).body.status).toBe('published');
  });

  it('gives verdicts against the brand median once there are enough posts, and resolves outcomes', async () => {
    const { svc, brand } = shared;
    for (let i = 0; i < 4; i++)
      await api(svc.url, 'POST', '/v1/posts', {
        body: { channel_id: brand.channels.x, text: `Post number ${i} about async work and notes.` },
      });
    await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { days: 4 } });
    const list = await api(svc.url, 'GET', `/v1/posts?brand_id=${brand.id}&platform=x&status=published`);
    expect(list.body.posts.length).toBeGreaterThanOrEqual(5);
    for (const p of list.body.posts)
      expect(['outperforming', 'on_par', 'underperforming']).toContain(p.verdict);
    const one = await api(svc.url, 'GET', `/v1/posts/${list.body.posts[0].id}`);
    expect(one.body.baseline.length).toBeGreaterThan(0);
    expect(one.body.outcome.compared_with).toBeGreaterThanOrEqual(3);
    const resolved = await api(svc.url, 'POST', `/v1/posts/${list.body.posts[0].id}/resolve`);
    expect(resolved.body).toMatchObject({ post_id: list.body.posts[0].id, settled: true });
    const outcomes = await api(svc.url, 'POST', `/v1/brands/${brand.id}/outcomes`);
    expect(outcomes.body.outcomes.length).toBeGreaterThanOrEqual(6);
    const replies = await api(svc.url, 'GET', `/v1/posts/${list.body.posts[0].id}/replies`);
    expect(replies.status).toBe(200);
    expect(replies.body).toHaveProperty('has_more');
  });

  it('edits and deletes only scheduled posts', async () => {
    const { svc, brand } = shared;
    const post = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'Later.', scheduled_for: future(30) },
    });
    const edited = await api(svc.url, 'PATCH', `/v1/posts/${post.body.id}`, {
      body: { text: 'Later, edited.', scheduled_for: future(31) },
    });
    expect(edited.body.parts[0].text).toBe('Later, edited.');
    expect(
      (await api(svc.url, 'PATCH', `/v1/posts/${post.body.id}`, { body: { text: 'x'.repeat(281) } })).body
        .error.code,
    ).toBe('TOO_LONG');
    expect(
      (await api(svc.url, 'PATCH', `/v1/posts/${post.body.id}`, { body: { scheduled_for: future(-1) } })).body
        .error.code,
    ).toBe('SLOT_IN_PAST');
    expect((await api(svc.url, 'DELETE', `/v1/posts/${post.body.id}`)).body.deleted).toBe(true);
    const live = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'Out already.' },
    });
    expect((await api(svc.url, 'DELETE', `/v1/posts/${live.body.id}`)).body.error.code).toBe(
      'POST_ALREADY_PUBLISHED',
    );
    expect(
      (await api(svc.url, 'PATCH', `/v1/posts/${live.body.id}`, { body: { text: 'x' } })).body.error.code,
    ).toBe('POST_NOT_EDITABLE');
    const sched = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'x', scheduled_for: future(50) },
    });
    expect((await api(svc.url, 'POST', `/v1/posts/${sched.body.id}/resolve`)).body.error.code).toBe(
      'POST_NOT_PUBLISHED',
    );
  });

  it('publishes a scheduled post now, once, and refuses any other status', async () => {
    const { svc, brand } = shared;
    const post = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.linkedin, text: 'Going out early.', scheduled_for: future(40) },
    });
    expect(post.body.status).toBe('scheduled');
    const now = (svc.handle as any).ctx.clock.now().toISOString();
    const published = await api(svc.url, 'POST', `/v1/posts/${post.body.id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ id: post.body.id, status: 'published', published_at: now });
    expect(published.body.permalink).toMatch(/^https:\/\/sandbox\.svc\.local\/linkedin\//);
    expect((await api(svc.url, 'GET', `/v1/posts/${post.body.id}`)).body.status).toBe('published');
    // Asked again (a double click, a retry): refused, never sent a second time.
    const again = await api(svc.url, 'POST', `/v1/posts/${post.body.id}/publish`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('POST_NOT_SCHEDULED');
    expect(again.body.error.message).toMatch(/is published; only a scheduled post can be published now/);
    // The hour it was scheduled for is free again for another post on the channel.
    const then = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.linkedin, text: 'The old slot.', scheduled_for: future(40) },
    });
    expect(then.status).toBe(201);
    expect((await api(svc.url, 'POST', '/v1/posts/post_missing/publish')).status).toBe(404);
  });

  it('validates post input, writing nothing', async () => {
    const { svc, brand } = shared;
    const before = (await api(svc.url, 'GET', `/v1/posts?brand_id=${brand.id}&limit=100`)).body.posts.length;
    const cases: [unknown, number, string][] = [
      [{ text: 'no channel' }, 400, 'INVALID_REQUEST'],
      [{ channel_id: 'ch_missing', text: 'x' }, 404, 'NOT_FOUND'],
      [{ channel_id: brand.channels.x, text: 'x', scheduled_for: 'tomorrow' }, 400, 'INVALID_REQUEST'],
      [
        { channel_id: brand.channels.x, text: 'x', scheduled_for: '2020-01-01T00:00:00Z' },
        422,
        'SLOT_IN_PAST',
      ],
      [{ channel_id: brand.channels.x, text: 'x'.repeat(281) }, 422, 'TOO_LONG'],
      [{ channel_id: brand.channels.x, text: 'x', pin: true }, 400, 'INVALID_REQUEST'],
      [{ draft_id: 'drf_missing' }, 404, 'NOT_FOUND'],
    ];
    for (const [body, status, code] of cases) {
      const r = await api(svc.url, 'POST', '/v1/posts', { body });
      expect([r.status, r.body.error.code]).toEqual([status, code]);
    }
    const noChannel = await makeBrand(svc, { channels: [] });
    const d = await makeDraft(svc, noChannel.id);
    expect((await api(svc.url, 'POST', '/v1/posts', { body: { draft_id: d } })).body.error.code).toBe(
      'NO_CHANNEL',
    );
    expect((await api(svc.url, 'GET', `/v1/posts?brand_id=${brand.id}&limit=100`)).body.posts.length).toBe(
      before,
    );
    expect((await api(svc.url, 'GET', '/v1/posts/post_missing')).status).toBe(404);
    // The list reads the brand only when the page is empty: an unknown brand is still a 404.
    const unknown = await api(svc.url, 'GET', '/v1/posts?brand_id=brd_missing');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('refuses bad clock moves', async () => {
    const { svc } = shared;
    expect((await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: {} })).body.error.code).toBe(
      'INVALID_ADVANCE',
    );
    expect(
      (await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { to: '2000-01-01T00:00:00Z' } })).body
        .error.code,
    ).toBe('INVALID_ADVANCE');
    expect((await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: -1 } })).status).toBe(
      400,
    );
    const clock = await api(svc.url, 'GET', '/v1/sandbox/clock');
    expect(clock.body.offset_ms).toBeGreaterThan(0);
    expect(Date.parse(clock.body.now)).toBe(svc.clock.now().getTime() + clock.body.offset_ms);
  });
});

describe('approvals and best times', () => {
  const shared = serviceWithBrand();

  it('falls back to platform defaults with little history, within range', async () => {
    const { svc, brand } = shared;
    const times = await api(svc.url, 'GET', `/v1/brands/${brand.id}/best-times`);
    expect(times.body.platforms.map((p: any) => p.platform).sort()).toEqual(['linkedin', 'x']);
    for (const p of times.body.platforms) {
      expect(p.source).toBe('default');
      expect(p.slots.length).toBeGreaterThan(0);
      for (const s of p.slots) {
        expect(Number.isInteger(s.weekday) && s.weekday >= 0 && s.weekday <= 6).toBe(true);
        expect(Number.isInteger(s.hour) && s.hour >= 0 && s.hour <= 23).toBe(true);
        expect(s.score >= 0 && s.score <= 1).toBe(true);
      }
      const d = new Date(p.next_free.at);
      expect(p.slots.some((s: any) => s.weekday === d.getDay() && s.hour === d.getHours())).toBe(true);
    }
    const one = await api(svc.url, 'GET', `/v1/brands/${brand.id}/best-times?platform=threads`);
    expect(one.body.platforms).toHaveLength(1);
    expect(one.body.platforms[0].next_free).toBeNull();
    expect((await api(svc.url, 'GET', `/v1/brands/${brand.id}/best-times?platform=fax`)).status).toBe(400);
  });

  it('proposes into the next free slot; a taken slot is not free; nothing is scheduled', async () => {
    const { svc, brand } = shared;
    const d1 = await makeDraft(svc, brand.id);
    const d2 = await makeDraft(svc, brand.id);
    const a1 = await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: d1, reason: 'Timely' } });
    expect(a1.status).toBe(201);
    expect(a1.body).toMatchObject({ status: 'pending', reason: 'Timely', source: 'app', post_id: null });
    expect(a1.body.voice_check.checks.map((c: any) => c.id)).toEqual([
      'banned_words',
      'length',
      'hashtags',
      'media',
      'empty_hook',
    ]);
    const a2 = await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: d2 } });
    expect(a2.body.slot).not.toBe(a1.body.slot);
    expect(Date.parse(a2.body.slot)).toBeGreaterThan(Date.parse(a1.body.slot));
    const times = await api(svc.url, 'GET', `/v1/brands/${brand.id}/best-times?platform=x`);
    expect([a1.body.slot, a2.body.slot]).not.toContain(times.body.platforms[0].next_free.at);
    expect((await api(svc.url, 'GET', `/v1/posts?brand_id=${brand.id}`)).body.posts).toHaveLength(0);
    const again = await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: d1 } });
    expect(again.body.error.code).toBe('ALREADY_PROPOSED');
    const d3 = await makeDraft(svc, brand.id);
    const clash = await api(svc.url, 'POST', '/v1/approvals', {
      body: { draft_id: d3, proposed_for: a1.body.slot },
    });
    expect(clash.body.error.code).toBe('SLOT_TAKEN');
  });

  it('approve schedules into the slot; reject records the reason; decided ones stay decided', async () => {
    const { svc, brand } = shared;
    const d = await makeDraft(
      svc,
      brand.id,
      'linkedin',
      'A synergy-free look at how we plan the week ahead.',
    );
    const a = await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: d } });
    expect(a.body.voice_check.passed).toBe(false);
    const ok = await api(svc.url, 'POST', `/v1/approvals/${a.body.id}/approve`);
    expect(ok.body).toMatchObject({ status: 'approved', decided_by: 'person_local' });
    const post = await api(svc.url, 'GET', `/v1/posts/${ok.body.post_id}`);
    expect(post.body).toMatchObject({ status: 'scheduled', scheduled_for: a.body.slot, draft_id: d });
    expect(
      (await api(svc.url, 'POST', `/v1/approvals/${a.body.id}/reject`, { body: { reason: 'late' } })).body
        .error.code,
    ).toBe('APPROVAL_DECIDED');
    const d2 = await makeDraft(svc, brand.id);
    const b = await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: d2 } });
    expect((await api(svc.url, 'POST', `/v1/approvals/${b.body.id}/reject`, { body: {} })).status).toBe(400);
    const no = await api(svc.url, 'POST', `/v1/approvals/${b.body.id}/reject`, {
      body: { reason: 'Off-brand tone' },
    });
    expect(no.body).toMatchObject({ status: 'rejected', decision_reason: 'Off-brand tone' });
    expect((await api(svc.url, 'GET', `/v1/drafts/${d2}`)).body.status).toBe('draft');
    expect((await api(svc.url, 'POST', '/v1/approvals/apr_missing/approve')).status).toBe(404);
  });

  it('lists pending first with counts', async () => {
    const { svc, brand } = shared;
    const res = await api(svc.url, 'GET', `/v1/approvals?brand_id=${brand.id}`);
    const statuses = res.body.approvals.map((a: any) => a.status);
    const firstDecided = statuses.findIndex((s: string) => s !== 'pending');
    expect(statuses.slice(firstDecided).every((s: string) => s !== 'pending')).toBe(true);
    expect(res.body.counts).toEqual({
      pending: statuses.filter((s: string) => s === 'pending').length,
      approved: statuses.filter((s: string) => s === 'approved').length,
      rejected: statuses.filter((s: string) => s === 'rejected').length,
    });
    const paged = await api(svc.url, 'GET', `/v1/approvals?brand_id=${brand.id}&limit=1`);
    const next = await api(
      svc.url,
      'GET',
      `/v1/approvals?brand_id=${brand.id}&limit=1&after=${paged.body.next_after}`,
    );
    expect(next.body.approvals[0].id).toBe(res.body.approvals[1].id);
  });

  it('bulk approves, edits and rejects, all or nothing', async () => {
    const { svc, brand } = shared;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: await makeDraft(svc, brand.id) } }))
          .body.id,
      );
    const failing = await api(svc.url, 'POST', '/v1/approvals/bulk', {
      body: {
        actions: [
          { action: 'approve', id: ids[0] },
          { action: 'edit', id: ids[1], text: 'x'.repeat(300) },
        ],
      },
    });
    expect(failing.status).toBe(422);
    expect(failing.body.error.message).toMatch(/^actions\[1\]/);
    expect((await api(svc.url, 'GET', `/v1/approvals/${ids[0]}`)).body.status).toBe('pending');
    const res = await api(svc.url, 'POST', '/v1/approvals/bulk', {
      body: {
        actions: [
          { action: 'approve', id: ids[0] },
          { action: 'edit', id: ids[1], text: 'A sharper opening line for this post.' },
          { action: 'reject', id: ids[2], reason: 'Duplicate' },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.approvals.map((a: any) => a.status)).toEqual(['approved', 'pending', 'rejected']);
    expect(res.body.approvals[1].draft.version).toBe(2);
    expect(res.body.approvals[1].draft.parts[0].text).toBe('A sharper opening line for this post.');
    expect((await api(svc.url, 'POST', '/v1/approvals/bulk', { body: { actions: [] } })).status).toBe(400);
    expect(
      (
        await api(svc.url, 'POST', '/v1/approvals/bulk', {
          body: { actions: [{ action: 'archive', id: ids[0] }] },
        })
      ).status,
    ).toBe(400);
  });
});

describe('live mode', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('content', { config: { mode: 'live' } });
  });
  afterAll(() => svc.close());

  it('reports live mode and refuses to publish, schedule, connect or move the clock, writing nothing', async () => {
    const mode = await api(svc.url, 'GET', '/v1/mode');
    expect(mode.body).toMatchObject({
      mode: 'live',
      model: 'simulated',
      label: '(live · simulated)',
      publishing: 'unavailable',
    });
    const brand = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Live brand' } });
    const connect = await api(svc.url, 'POST', `/v1/brands/${brand.body.id}/channels/connect`, {
      body: { platform: 'x' },
    });
    expect(connect.status).toBe(501);
    expect(connect.body.error.code).toBe('OAUTH_NOT_CONFIGURED');
    const callback = await api(svc.url, 'GET', '/oauth/x/callback?code=abc');
    expect(callback.body.error.code).toBe('OAUTH_NOT_CONFIGURED');
    // A channel left over from sandbox days: publishing through it still fails loudly.
    const ctx = (svc.handle as any).ctx;
    await ctx.db.run(
      "INSERT INTO channels (id, brand_id, platform, handle, display_name, kind, status, connected_at, created_at) VALUES ('ch_old', ?, 'x', 'old', 'Old', 'sandbox', 'connected', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
      [brand.body.id],
    );
    const pub = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: 'ch_old', text: 'Would be real.' },
    });
    expect(pub.status).toBe(501);
    expect(pub.body.error.code).toBe('OAUTH_NOT_CONFIGURED');
    expect((await api(svc.url, 'GET', '/v1/posts')).body.posts).toHaveLength(0);
    expect(
      (await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 1 } })).body.error.code,
    ).toBe('SANDBOX_ONLY');
  });
});

describe('real model without an adapter', () => {
  it('fails model calls clearly and says so in /v1/mode', async () => {
    const svc = await startTestService('content', { config: { model: 'real' } });
    try {
      expect((await api(svc.url, 'GET', '/v1/mode')).body).toMatchObject({
        model: 'real',
        model_ready: false,
        label: '(sandbox · real)',
      });
      const brand = await makeBrand(svc);
      const idea = await api(svc.url, 'POST', '/v1/ideas', { body: { brand_id: brand.id, title: 'x' } });
      const gen = await api(svc.url, 'POST', '/v1/drafts/generate', {
        body: { idea_id: idea.body.id, platforms: ['x'] },
      });
      expect(gen.status).toBe(501);
      expect(gen.body.error.code).toBe('MODEL_NOT_CONFIGURED');
      expect((await api(svc.url, 'GET', '/v1/drafts')).body.drafts).toHaveLength(0);
    } finally {
      await svc.close();
    }
  });
});
