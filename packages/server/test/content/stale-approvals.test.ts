import { describe, expect, it } from 'vitest';
import { api } from '../helpers/start.js';
import { makeDraft, serviceWithBrand } from './helpers.js';

const HOUR = 3_600_000;

/** Approvals whose slot has passed: flagged in the queue, re-slotted when approved. */
describe('approvals whose slot has passed', () => {
  const shared = serviceWithBrand();
  const now = () => (shared.svc.handle as any).ctx.clock.now().getTime() as number;

  async function propose(text: string) {
    const draftId = await makeDraft(shared.svc, shared.brand.id, 'linkedin', text);
    const res = await api(shared.svc.url, 'POST', '/v1/approvals', { body: { draft_id: draftId } });
    expect(res.status).toBe(201);
    return res.body;
  }

  it('flags the approval in the queue once its slot passes, and approving moves it to the next free slot', async () => {
    const { svc, brand } = shared;
    const proposed = await propose('What would you drop first: standups or status emails?');
    expect(proposed.slot_passed).toBe(false);
    const oldSlot = proposed.slot as string;

    // The manager comes back a day after the slot.
    svc.clock.advance(Date.parse(oldSlot) - now() + 24 * HOUR);
    const list = await api(svc.url, 'GET', `/v1/approvals?brand_id=${brand.id}&status=pending`);
    const listed = list.body.approvals.find((a: any) => a.id === proposed.id);
    expect(listed).toMatchObject({ status: 'pending', slot: oldSlot, slot_passed: true });
    expect((await api(svc.url, 'GET', `/v1/approvals/${proposed.id}`)).body.slot_passed).toBe(true);

    const approved = await api(svc.url, 'POST', `/v1/approvals/${proposed.id}/approve`, { body: {} });
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('approved');
    expect(approved.body.slot_passed).toBe(false);
    expect(Date.parse(approved.body.slot)).toBeGreaterThan(now());
    expect(approved.body.slot).not.toBe(oldSlot);
    expect(approved.body.decision_reason).toContain(oldSlot);
    expect(approved.body.decision_reason).toContain(approved.body.slot);

    // The best-time slot it went into is the one best-times offered as next free.
    const post = await api(svc.url, 'GET', `/v1/posts/${approved.body.post_id}`);
    expect(post.body).toMatchObject({ status: 'scheduled', scheduled_for: approved.body.slot });
  });

  it('refuses an explicit slot in the past, and keeps an explicit future slot as given', async () => {
    const { svc } = shared;
    const proposed = await propose('How many meetings did you cancel this week? We dropped four.');
    svc.clock.advance(Date.parse(proposed.slot) - now() + HOUR);
    const past = await api(svc.url, 'POST', `/v1/approvals/${proposed.id}/approve`, {
      body: { slot: new Date(now() - HOUR).toISOString() },
    });
    expect(past.status).toBe(422);
    expect(past.body.error.code).toBe('SLOT_IN_PAST');
    expect((await api(svc.url, 'GET', `/v1/approvals/${proposed.id}`)).body.status).toBe('pending');

    const chosen = new Date(now() + 50 * HOUR);
    chosen.setMinutes(30, 0, 0);
    const ok = await api(svc.url, 'POST', `/v1/approvals/${proposed.id}/approve`, {
      body: { slot: chosen.toISOString() },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ slot: chosen.toISOString(), decision_reason: null });
  });

  it('re-slots the same way in bulk, and a slot edited into the future clears the flag', async () => {
    const { svc } = shared;
    const a = await propose('Which status meeting would you cut first?');
    const b = await propose('What does a good decision log look like? Ours has three lines.');
    svc.clock.advance(Math.max(Date.parse(a.slot), Date.parse(b.slot)) - now() + HOUR);

    const edited = await api(svc.url, 'PATCH', `/v1/approvals/${b.id}`, {
      body: { slot: new Date(now() + 30 * HOUR).toISOString() },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.slot_passed).toBe(false);

    const bulk = await api(svc.url, 'POST', '/v1/approvals/bulk', {
      body: { actions: [{ action: 'approve', id: a.id }] },
    });
    expect(bulk.status).toBe(200);
    const done = bulk.body.approvals[0];
    expect(done.status).toBe('approved');
    expect(Date.parse(done.slot)).toBeGreaterThan(now());
    expect(done.decision_reason).toContain(a.slot);
  });
});
