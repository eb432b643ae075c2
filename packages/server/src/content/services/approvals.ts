import { AppError, notFound } from '../../platform/errors.js';
import type { Caller, ContentContext } from '../context.js';
import type { ApprovalRow, ApprovalWithChannel } from '../db/stores/approvals-store.js';
import type { ContentStores } from '../db/stores/index.js';
import type { PostRow } from '../db/stores/posts-store.js';
import type { ApprovalStatus } from '../domain.js';
import type { ApprovalView, BulkActionInput, ProposeInput } from '../schemas/approvals.js';
import type { Page } from '../schemas/common.js';
import { isSlotTaken, nextFreeSlot } from './best-times.js';
import { memoryOf, requireBrand } from './brands.js';
import { needsReconnect } from './channel-credentials.js';
import { requireConnectedChannel } from './channels.js';
import { addDraftVersion, checkParts, partsFromInput } from './drafts.js';
import { conflict, unprocessable } from './errors.js';
import { moveIdeaBySystem } from './ideas.js';
import { approvalChannel, partsView } from './views.js';
import { voiceCheck } from './voice-check.js';

/** `now` decides `slot_passed`: a pending approval whose slot is not in the future any more. */
const view = (r: ApprovalWithChannel, now: Date): ApprovalView => ({
  id: r.id,
  brand_id: r.brand_id,
  status: r.status,
  draft: {
    id: r.draft_id,
    platform: r.draft_platform,
    version: r.draft_version,
    parts: partsView(r.parts),
  },
  channel: approvalChannel(r),
  slot: r.slot,
  slot_passed: r.status === 'pending' && Date.parse(r.slot) <= now.getTime(),
  reason: r.reason,
  voice_check: r.voice_check,
  source: r.source as ApprovalView['source'],
  key_id: r.key_id,
  run_id: r.run_id,
  post_id: r.post_id,
  decided_at: r.decided_at,
  decided_by: r.decided_by,
  decision_reason: r.decision_reason,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

async function requireApproval(db: ContentStores, id: string) {
  const a = await db.approvals.get(id);
  if (!a) throw notFound('approval', id);
  return a;
}

export async function getApproval(ctx: ContentContext, id: string): Promise<ApprovalView> {
  return view(await requireApproval(ctx.stores, id), ctx.clock.now());
}

/** `list_approvals`: pending first, then newest; with counts per status for the whole queue. */
export async function listApprovals(
  ctx: ContentContext,
  filter: { status?: ApprovalStatus | undefined; brand_id?: string | undefined },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<ApprovalView> & { counts: { pending: number; approved: number; rejected: number } }> {
  // An unknown brand is a 404, as on every other brand-scoped list, not an empty queue.
  if (filter.brand_id) await requireBrand(ctx, filter.brand_id);
  const store = ctx.stores.approvals;
  const page = await store.list({ brandId: filter.brand_id, status: filter.status }, opts.limit, opts.after);
  const now = ctx.clock.now();
  return { ...page, items: page.items.map((r) => view(r, now)), counts: await store.counts(filter.brand_id) };
}

/**
 * `propose_post`: a pending approval for a draft, in `proposed_for` or the next free best-time
 * slot on the channel. Nothing is published or scheduled until a person approves.
 */
export async function proposePost(
  ctx: ContentContext,
  input: ProposeInput,
  caller: Caller,
  opts: { runId?: string } = {},
): Promise<ApprovalView> {
  const draft = await ctx.stores.drafts.get(input.draft_id);
  if (!draft) throw notFound('draft', input.draft_id);
  if (draft.status === 'proposed')
    throw conflict('ALREADY_PROPOSED', `Draft '${draft.id}' already has a pending approval.`);
  if (draft.status !== 'draft')
    throw conflict('DRAFT_LOCKED', `Draft '${draft.id}' is already ${draft.status}.`);
  const platform = draft.platform;
  const channel = await requireConnectedChannel(ctx, draft.brand_id, platform, input.channel_id);
  const wanted = input.proposed_for ? new Date(input.proposed_for) : null;
  if (wanted && wanted.getTime() <= ctx.clock.now().getTime())
    throw unprocessable(
      'SLOT_IN_PAST',
      `'proposed_for' (${wanted.toISOString()}) is not in the future.`,
      'proposed_for',
    );
  const brand = await ctx.stores.brands.get(draft.brand_id);
  if (!brand) throw notFound('brand', draft.brand_id);
  const check = voiceCheck(memoryOf(brand), platform, draft.parts);
  const at = ctx.clock.now().toISOString();
  const id = ctx.ids.make('apr');
  const alreadyProposed = () =>
    conflict('ALREADY_PROPOSED', `Draft '${draft.id}' already has a pending approval.`);
  // The slot is checked (or chosen) and the draft taken in the transaction that writes the
  // approval: a concurrent proposal cannot take the same hour or the same draft in between.
  await ctx.transaction(async (tx) => {
    if (!(await tx.drafts.moveStatus(draft.id, 'draft', 'proposed', at))) throw alreadyProposed();
    let slot: string;
    if (wanted) {
      if (await isSlotTaken(tx, channel.id, wanted))
        throw conflict(
          'SLOT_TAKEN',
          `The hour of ${wanted.toISOString()} on channel '${channel.id}' is already taken.`,
        );
      slot = wanted.toISOString();
    } else {
      const free = await nextFreeSlot(ctx, {
        brandId: draft.brand_id,
        channelId: channel.id,
        platform,
        db: tx,
      });
      if (!free)
        throw conflict(
          'NO_FREE_SLOT',
          `No free best-time slot on channel '${channel.id}' in the next 4 weeks.`,
        );
      slot = free.at;
    }
    await tx.approvals.insert(
      {
        id,
        brand_id: draft.brand_id,
        draft_id: draft.id,
        draft_version: draft.current_version,
        channel_id: channel.id,
        slot,
        reason: input.reason ?? null,
        voice_check: check,
        status: 'pending',
        pending_rank: 1,
        decided_at: null,
        decided_by: null,
        decision_reason: null,
        post_id: null,
        run_id: opts.runId ?? null,
        source: caller.source,
        key_id: caller.keyId ?? null,
        person_id: caller.personId ?? null,
        created_at: at,
        updated_at: at,
      },
      alreadyProposed,
    );
  });
  return getApproval(ctx, id);
}

const decider = (caller: Caller) =>
  caller.personId ?? `${caller.source}${caller.keyId ? `:${caller.keyId}` : ''}`;

/**
 * Writes the decision or edit only while the approval is still pending. The caller checked
 * `assertPending` on its read; this makes the write itself say so, so two decisions racing on two
 * connections cannot both land (the second is the same 409 the check gives).
 */
async function decideIn(tx: ContentStores, a: ApprovalWithChannel, patch: Partial<ApprovalRow>, at: string) {
  if (!(await tx.approvals.updateIfPending(a.id, patch, at)))
    assertPending({ ...a, status: (await tx.approvals.get(a.id))?.status ?? 'gone' });
}

function assertPending(a: Pick<ApprovalWithChannel, 'id'> & { status: ApprovalStatus | 'gone' }) {
  if (a.status !== 'pending')
    throw conflict(
      'APPROVAL_DECIDED',
      `Approval '${a.id}' is already ${a.status}; only pending approvals can change.`,
    );
}

/**
 * Approving schedules the post into the slot. Runs on `tx` so bulk can do many in one transaction.
 * A slot given with the approval must be in the future. When the proposed slot has passed and
 * none is given, the post goes into the next free best-time slot on the channel instead, and
 * `decision_reason` says so: approving late should not mean proposing again.
 */
async function approveIn(
  ctx: ContentContext,
  tx: ContentStores,
  id: string,
  input: { slot?: string | undefined },
  caller: Caller,
) {
  const a = await requireApproval(tx, id);
  assertPending(a);
  const channel = await tx.channels.get(a.channel_id);
  if (channel?.status === 'needs_reconnect') throw needsReconnect(channel);
  if (channel?.status !== 'connected')
    throw conflict(
      'CHANNEL_DISCONNECTED',
      `Channel '${a.channel_id}' is disconnected; connect it again or reject.`,
    );
  ctx.publisher.assertCanPublish(a.channel_platform);
  const now = ctx.clock.now().getTime();
  let slot = new Date(input.slot ?? a.slot);
  let reslotted: string | null = null;
  if (input.slot && slot.getTime() <= now)
    throw unprocessable('SLOT_IN_PAST', `'slot' (${slot.toISOString()}) is not in the future.`, 'slot');
  if (slot.getTime() <= now) {
    const free = await nextFreeSlot(ctx, {
      brandId: a.brand_id,
      channelId: a.channel_id,
      platform: a.channel_platform,
      db: tx,
    });
    if (!free)
      throw conflict(
        'NO_FREE_SLOT',
        `The slot ${a.slot} has passed and channel '${a.channel_id}' has no free best-time slot in the next 4 weeks. Approve with a 'slot'.`,
      );
    slot = new Date(free.at);
    reslotted = `The proposed slot ${a.slot} had passed when this was approved; scheduled for ${free.at}, the next free best-time slot on channel '${a.channel_id}'.`;
  }
  if (await isSlotTaken(tx, a.channel_id, slot, { postsOnly: true }))
    throw conflict(
      'SLOT_TAKEN',
      `Channel '${a.channel_id}' already has a post scheduled in the hour of ${slot.toISOString()}.`,
    );
  const draft = await tx.drafts.get(a.draft_id);
  const at = ctx.clock.now().toISOString();
  const post: PostRow = {
    id: ctx.ids.make('post'),
    brand_id: a.brand_id,
    channel_id: a.channel_id,
    platform: a.channel_platform,
    draft_id: a.draft_id,
    draft_version: a.draft_version,
    idea_id: draft?.idea_id ?? null,
    status: 'scheduled',
    parts: a.parts,
    scheduled_for: slot.toISOString(),
    published_at: null,
    sort_at: slot.toISOString(),
    permalink: null,
    external_id: null,
    failure: null,
    settled_at: null,
    created_at: at,
    updated_at: at,
  };
  await tx.posts.insert(post, () =>
    conflict(
      'SLOT_TAKEN',
      `Channel '${a.channel_id}' already has a post scheduled in the hour of ${slot.toISOString()}.`,
    ),
  );
  await decideIn(
    tx,
    a,
    {
      status: 'approved',
      pending_rank: 0,
      slot: slot.toISOString(),
      post_id: post.id,
      decided_at: at,
      decided_by: decider(caller),
      decision_reason: reslotted,
    },
    at,
  );
  await tx.drafts.setStatus(a.draft_id, 'scheduled', at);
  await moveIdeaBySystem(tx, post.idea_id, 'scheduled', at);
}

async function rejectIn(
  ctx: ContentContext,
  tx: ContentStores,
  id: string,
  input: { reason: string },
  caller: Caller,
) {
  const a = await requireApproval(tx, id);
  assertPending(a);
  const at = ctx.clock.now().toISOString();
  await decideIn(
    tx,
    a,
    {
      status: 'rejected',
      pending_rank: 0,
      decided_at: at,
      decided_by: decider(caller),
      decision_reason: input.reason,
    },
    at,
  );
  await tx.drafts.setStatus(a.draft_id, 'draft', at);
}

/** Edit keeps the approval pending: new draft version, new voice check, maybe a new slot. */
async function editIn(
  ctx: ContentContext,
  tx: ContentStores,
  id: string,
  input: { text?: string | undefined; parts?: { text: string }[] | undefined; slot?: string | undefined },
  caller: Caller,
) {
  const a = await requireApproval(tx, id);
  assertPending(a);
  const at = ctx.clock.now().toISOString();
  const patch: Partial<ApprovalRow> = {};
  if (input.text !== undefined || input.parts) {
    const draft = await tx.drafts.get(a.draft_id);
    if (!draft) throw notFound('draft', a.draft_id);
    const old = draft.parts;
    const parts = partsFromInput(input).map((text, i) => ({
      text,
      media: i === 0 ? (old[0]?.media ?? []) : [],
    }));
    const platform = draft.platform;
    checkParts(platform, parts);
    const version = draft.current_version + 1;
    await addDraftVersion(tx, {
      draft_id: draft.id,
      version,
      parts,
      action: 'edit',
      note: 'edited in the approval queue',
      source: caller.source,
      key_id: caller.keyId ?? null,
      created_at: at,
    });
    const brand = await tx.brands.get(a.brand_id);
    patch.draft_version = version;
    if (brand) patch.voice_check = voiceCheck(memoryOf(brand), platform, parts);
  }
  if (input.slot) {
    const when = new Date(input.slot);
    if (when.getTime() <= ctx.clock.now().getTime())
      throw unprocessable('SLOT_IN_PAST', `'slot' (${when.toISOString()}) is not in the future.`, 'slot');
    if (await isSlotTaken(tx, a.channel_id, when, { exceptApproval: a.id }))
      throw conflict(
        'SLOT_TAKEN',
        `The hour of ${when.toISOString()} on channel '${a.channel_id}' is already taken.`,
      );
    patch.slot = when.toISOString();
  }
  if (Object.keys(patch).length === 0)
    throw new AppError(400, 'INVALID_REQUEST', "An edit needs 'text', 'parts' or 'slot'.", { param: 'text' });
  await decideIn(tx, a, patch, at);
}

export async function approveApproval(
  ctx: ContentContext,
  id: string,
  input: { slot?: string | undefined },
  caller: Caller,
) {
  await ctx.transaction((tx) => approveIn(ctx, tx, id, input, caller));
  return getApproval(ctx, id);
}

export async function rejectApproval(
  ctx: ContentContext,
  id: string,
  input: { reason: string },
  caller: Caller,
) {
  await ctx.transaction((tx) => rejectIn(ctx, tx, id, input, caller));
  return getApproval(ctx, id);
}

export async function editApproval(
  ctx: ContentContext,
  id: string,
  input: { text?: string | undefined; parts?: { text: string }[] | undefined; slot?: string | undefined },
  caller: Caller,
) {
  await ctx.transaction((tx) => editIn(ctx, tx, id, input, caller));
  return getApproval(ctx, id);
}

/**
 * All or nothing: every action runs in one transaction, and the first failure rolls back the
 * rest, with an error that names the action's index.
 */
export async function bulkApprovals(ctx: ContentContext, actions: BulkActionInput[], caller: Caller) {
  const ids = actions.map((a) => a.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup)
    throw new AppError(400, 'INVALID_REQUEST', `Approval '${dup}' appears twice in 'actions'.`, {
      param: 'actions',
    });
  await ctx.transaction(async (tx) => {
    for (const [i, action] of actions.entries()) {
      try {
        if (action.action === 'approve') await approveIn(ctx, tx, action.id, action, caller);
        else if (action.action === 'reject') await rejectIn(ctx, tx, action.id, action, caller);
        else await editIn(ctx, tx, action.id, action, caller);
      } catch (err) {
        if (err instanceof AppError)
          throw new AppError(
            err.status,
            err.code,
            `actions[${i}] (${action.action} ${action.id}): ${err.message} Nothing was changed.`,
            {
              param: `actions.${i}`,
            },
          );
        throw err;
      }
    }
  });
  const results: ApprovalView[] = [];
  for (const id of ids) results.push(await getApproval(ctx, id));
  return { approvals: results, counts: await ctx.stores.approvals.counts() };
}
