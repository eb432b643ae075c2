import { HOUR, MINUTE } from '../../platform/clock.js';
import { AppError, notFound } from '../../platform/errors.js';
import type { Caller, ContentContext } from '../context.js';
import type { draftsStore } from '../db/stores/drafts-store.js';
import type { ContentStores } from '../db/stores/index.js';
import { type PostRow, slotHourOf } from '../db/stores/posts-store.js';
import { type Platform, type PostStatus, SETTLE_AGE_H, SNAPSHOT_AGES_H, type Verdict } from '../domain.js';
import { deliverEvents, recordEvents } from '../events.js';
import { PublishError, type PublishResult } from '../publishers/index.js';
import type { Page } from '../schemas/common.js';
import type { OutcomeView, PostView } from '../schemas/posts.js';
import { listedOutcomes, NOT_PUBLISHED, outcomesFrom, postOutcome } from './baselines.js';
import { isSlotTaken } from './best-times.js';
import { requireBrand } from './brands.js';
import { reconnectMessage } from './channel-credentials.js';
import { requireConnectedChannel } from './channels.js';
import { checkParts, partsFromInput } from './drafts.js';
import { conflict, unprocessable } from './errors.js';
import { moveIdeaBySystem } from './ideas.js';
import type { Snapshot } from './metrics.js';
import { outcomesOf } from './outcomes.js';
import { attemptLease, isAbandoned, keepAttemptAlive } from './publish-leases.js';
import { ageAt, dueAges, takeSimulatedSnapshots } from './snapshots.js';
import { isSandboxPost, metricsView, partsView, type StoredPart } from './views.js';

export async function requirePost(db: ContentStores, id: string): Promise<PostRow> {
  const post = await db.posts.get(id);
  if (!post) throw notFound('post', id);
  return post;
}

/** The post as the API shows it, with its own snapshots (oldest first) and its verdict. */
function view(p: PostRow, latest: Snapshot | undefined, verdict: Verdict): PostView {
  return {
    id: p.id,
    brand_id: p.brand_id,
    channel_id: p.channel_id,
    platform: p.platform,
    status: p.status,
    parts: partsView(p.parts),
    draft_id: p.draft_id,
    draft_version: p.draft_version,
    idea_id: p.idea_id,
    scheduled_for: p.scheduled_for,
    published_at: p.published_at,
    permalink: p.permalink,
    sandbox: isSandboxPost(p),
    failure: p.failure,
    notice: p.notice ?? null,
    retry_at: p.retry_at ?? null,
    metrics: latest ? metricsView(latest) : null,
    verdict,
    settled_at: p.settled_at,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

/** One post's view, its verdict from the brand's stored baselines. */
async function viewOf(db: ContentStores, post: PostRow): Promise<PostView> {
  const o = await postOutcome(db, post);
  return view(post, o.own.at(-1), o.outcome.verdict);
}

/** `list_posts`: newest first, each with its latest metrics and verdict against the brand median. */
export async function listPosts(
  ctx: ContentContext,
  filter: {
    brand_id?: string | undefined;
    status?: PostStatus | undefined;
    channel_id?: string | undefined;
    platform?: Platform | undefined;
  },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<PostView>> {
  // One statement on PostgreSQL: the page, each post's snapshots and its brand's baselines.
  const page = await ctx.stores.posts.listWithVerdictInputs(
    {
      brandId: filter.brand_id,
      status: filter.status,
      channelId: filter.channel_id,
      platform: filter.platform,
    },
    opts.limit,
    opts.after,
    ctx.db.dialect,
  );
  // Posts reference their brand (ON DELETE CASCADE), so a page with posts proves the brand is
  // there: only an empty page reads the brand, to answer 404 for an unknown one. One round trip
  // less on PostgreSQL for every page that has posts.
  if (filter.brand_id && page.items.length === 0) await requireBrand(ctx, filter.brand_id);
  // Verdicts from the brands' stored baselines (services/baselines.ts), not all their snapshots.
  const outcomes = listedOutcomes(page);
  return {
    items: page.items.map((p) => {
      const o = outcomes.get(p.id);
      return view(p, o?.latest, o?.outcome.verdict ?? 'too_early');
    }),
    has_more: page.has_more,
    next_after: page.next_after,
  };
}

/** `get_post`: the post with its outcome, growth curve (snapshots) and the brand's baseline curve. */
export async function getPost(ctx: ContentContext, id: string) {
  // The post, its snapshots and its brand's stored baselines (services/baselines.ts): one
  // statement on PostgreSQL.
  const found = await ctx.stores.posts.getWithVerdictInputs(id, ctx.db.dialect);
  const post = found?.posts[0];
  if (!found || !post) throw notFound('post', id);
  const {
    own,
    curve,
    outcome: o,
  } = outcomesFrom(found).get(post.id) ?? {
    own: [],
    curve: [],
    outcome: NOT_PUBLISHED,
  };
  const outcome: OutcomeView = { post_id: post.id, ...o, settled: post.settled_at !== null };
  // Added to the view, not a spread copy of it: V8 gave every spread copy of the view its own
  // hidden class, which kept about 1.7 KB a request alive into the old generation
  // (docs/benchmarks/history.md, "Issue 20, seventh pass: memory"). Same keys, same order.
  return Object.assign(view(post, own.at(-1), outcome.verdict), {
    outcome,
    growth: own.map(metricsView),
    baseline: curve.map((c) => ({ age_h: c.age_h, engagements: c.engagements })),
  });
}

function checkFuture(ctx: ContentContext, at: string, param: string): Date {
  const when = new Date(at);
  if (when.getTime() <= ctx.clock.now().getTime())
    throw unprocessable('SLOT_IN_PAST', `'${param}' (${when.toISOString()}) is not in the future.`, param);
  return when;
}

/**
 * POST /v1/posts: publish now, or schedule with `scheduled_for`. In sandbox nothing leaves the
 * machine; in live mode without an adapter this fails before anything is written.
 */
export async function createPost(
  ctx: ContentContext,
  input: {
    draft_id?: string | undefined;
    channel_id?: string | undefined;
    parts?: { text: string }[] | undefined;
    text?: string | undefined;
    scheduled_for?: string | undefined;
  },
  _caller: Caller,
): Promise<PostView> {
  let brandId: string;
  let platform: Platform;
  let parts: StoredPart[];
  let draft: Awaited<ReturnType<ReturnType<typeof draftsStore>['get']>> | undefined;
  if (input.draft_id) {
    if (input.parts || input.text !== undefined)
      throw new AppError(
        400,
        'INVALID_REQUEST',
        "With 'draft_id' the post uses the draft's text; leave out 'parts' and 'text'.",
        {
          param: 'parts',
        },
      );
    draft = await ctx.stores.drafts.get(input.draft_id);
    assertDraftPostable(draft, input.draft_id);
    brandId = draft.brand_id;
    platform = draft.platform;
    parts = draft.parts;
  } else {
    if (!input.channel_id)
      throw new AppError(400, 'INVALID_REQUEST', "'channel_id' is required when posting without a draft.", {
        param: 'channel_id',
      });
    const ch = await ctx.stores.channels.get(input.channel_id);
    if (!ch) throw notFound('channel', input.channel_id);
    brandId = ch.brand_id;
    platform = ch.platform;
    parts = partsFromInput(input).map((text) => ({ text, media: [] }));
  }
  const channel = await requireConnectedChannel(ctx, brandId, platform, input.channel_id);
  checkParts(platform, parts);
  ctx.publisher.assertCanPublish(platform);
  const when = input.scheduled_for ? checkFuture(ctx, input.scheduled_for, 'scheduled_for') : null;
  const slotTaken = () =>
    conflict(
      'SLOT_TAKEN',
      `Channel '${channel.id}' already has a post scheduled in the hour of ${when?.toISOString()}.`,
    );

  const now = ctx.clock.now().toISOString();
  const id = ctx.ids.make('post');
  const row: PostRow = {
    id,
    brand_id: brandId,
    channel_id: channel.id,
    platform,
    draft_id: draft?.id ?? null,
    draft_version: draft?.current_version ?? null,
    idea_id: draft?.idea_id ?? null,
    status: 'scheduled',
    parts,
    scheduled_for: when ? when.toISOString() : now,
    published_at: null,
    sort_at: when ? when.toISOString() : now,
    permalink: null,
    external_id: null,
    failure: null,
    settled_at: null,
    created_at: now,
    updated_at: now,
    // Published now: the post holds no hour, so a post scheduled later this hour is not in its way.
    slot_hour: when ? slotHourOf(when.toISOString()) : null,
  };
  // The checks that guard the write run in its transaction, and the schema backs them: a second
  // request cannot take the draft or the hour between a check and the insert.
  await ctx.transaction(async (tx) => {
    if (draft && !(await tx.drafts.moveStatus(draft.id, 'draft', 'scheduled', now)))
      assertDraftPostable(await tx.drafts.get(draft.id), draft.id);
    if (when && (await isSlotTaken(tx, channel.id, when, { postsOnly: true }))) throw slotTaken();
    await tx.posts.insert(row, slotTaken);
    await moveIdeaBySystem(tx, row.idea_id, 'scheduled', now);
  });
  if (!when) await publishPosts(ctx, [row], { inRequest: true });
  return viewOf(ctx.stores, (await ctx.stores.posts.get(id)) as PostRow);
}

/** A post is made from a draft only while the draft is a plain draft (not proposed, not taken). */
function assertDraftPostable<T extends { id: string; status: string }>(
  draft: T | undefined,
  id: string,
): asserts draft is T {
  if (!draft) throw notFound('draft', id);
  if (draft.status === 'scheduled' || draft.status === 'published')
    throw conflict('DRAFT_LOCKED', `Draft '${draft.id}' is already ${draft.status}.`);
  if (draft.status === 'proposed')
    throw conflict(
      'ALREADY_PROPOSED',
      `Draft '${draft.id}' has a pending approval; approve or reject it instead.`,
    );
}

/** After this many 5xx retries in a row the post fails instead of waiting again. */
export const MAX_PUBLISH_RETRIES = 6;
/** 1, 2, 4, … minutes after each retryable failure, at most an hour. */
const backoffMs = (retries: number) => Math.min(HOUR, MINUTE * 2 ** Math.max(0, retries - 1));

const unconfirmedNotice = (postId: string, why: string) =>
  `${why} The service will not send it again on its own. Look at the account: if the post is there, confirm it with POST /v1/posts/${postId}/confirm {"published": true} (add its external_id so metrics can be read); if it is not, {"published": false} puts it back in the schedule.`;

/**
 * Publishes due posts through the publisher, never twice. Each post is claimed (scheduled →
 * publishing) and its attempt recorded in one committed transaction BEFORE the platform is
 * called; the call happens outside any transaction, once; its outcome is then recorded:
 * published; back to scheduled with `retry_at` (429, a 5xx that changed nothing); failed; or
 * `unconfirmed` when the platform may have the post but gave no answer. An attempt the server
 * never finished (killed mid-call) is made `unconfirmed` at start-up (recoverInterruptedPublishes).
 */
export async function publishPosts(
  ctx: ContentContext,
  due: PostRow[],
  opts: { inRequest?: boolean; stopped?: () => boolean } = {},
): Promise<{ published: string[]; failed: string[] }> {
  const published: string[] = [];
  const failed: string[] = [];
  for (const post of due) {
    // A stop has begun: the posts not yet claimed stay scheduled, untouched, for the next pass.
    if (opts.stopped?.()) break;
    const channel = await ctx.stores.channels.get(post.channel_id);
    const parts = post.parts;
    const startedAt = ctx.clock.now().toISOString();
    if (channel?.status !== 'connected') {
      const failure =
        channel?.status === 'needs_reconnect'
          ? `CHANNEL_NEEDS_RECONNECT: ${reconnectMessage(channel)}`
          : 'CHANNEL_DISCONNECTED: The channel was disconnected.';
      // Only if it is still waiting: another pass may have claimed it, or the person deleted it.
      if (
        await ctx.stores.posts.updateIf(
          post.id,
          'scheduled',
          { status: 'failed', failure, notice: null },
          startedAt,
        )
      )
        failed.push(post.id);
      continue;
    }
    const attemptId = ctx.ids.make('pat');
    const claimed = await ctx.transaction(async (tx) => {
      if (!(await tx.posts.claim(post.id, startedAt))) return false;
      await tx.publishAttempts.start({
        id: attemptId,
        post_id: post.id,
        platform: post.platform,
        started_at: startedAt,
        ...attemptLease(ctx),
      });
      return true;
    });
    if (!claimed) continue; // published, deleted or claimed by another pass meanwhile
    const earlier = post.external_ids ?? [];
    let result: PublishResult;
    const stopRenewing = keepAttemptAlive(ctx, attemptId);
    try {
      result = await ctx.publisher.publish({
        postId: post.id,
        channelId: channel.id,
        platform: post.platform,
        channelHandle: channel.handle,
        parts: parts.map((p) => p.text),
        media: (parts[0]?.media ?? []).map((m) => ({ assetId: m.asset_id, variant: m.variant })),
        alreadyPublished: earlier,
        ...(opts.inRequest ? { inRequest: true } : {}),
      });
    } catch (err) {
      const outcome = await recordFailure(ctx, post, attemptId, err, earlier);
      if (outcome === 'failed') failed.push(post.id);
      continue;
    } finally {
      stopRenewing();
    }
    // The sandbox clock jumps in hops, so a sandbox post publishes at its slot and its age lines
    // up with the timeline; a live post went out now.
    const when = ctx.publisher.kind === 'sandbox' ? (post.scheduled_for ?? startedAt) : startedAt;
    await ctx.transaction(async (tx) => {
      await markPublished(ctx, tx, post, 'publishing', when, result);
      await tx.publishAttempts.finish(attemptId, {
        outcome: 'published',
        finished_at: ctx.clock.now().toISOString(),
        external_ids: result.externalIds,
        error: null,
      });
    });
    published.push(post.id);
  }
  if (published.length) await deliverEvents(ctx);
  return { published, failed };
}

async function markPublished(
  ctx: ContentContext,
  tx: ContentStores,
  post: PostRow,
  from: 'publishing' | 'unconfirmed',
  when: string,
  result: { externalId: string | null; externalIds: string[]; permalink: string | null },
) {
  const moved = !(await tx.posts.updateIf(
    post.id,
    from,
    {
      status: 'published',
      published_at: when,
      sort_at: when,
      permalink: result.permalink,
      external_id: result.externalId,
      external_ids: result.externalIds,
      failure: null,
      notice: null,
      retry_at: null,
    },
    ctx.clock.now().toISOString(),
  ));
  if (moved && from === 'unconfirmed')
    throw notUnconfirmed(post.id, (await tx.posts.get(post.id))?.status ?? 'deleted');
  if (moved)
    throw conflict(
      'POST_CHANGED',
      `Post '${post.id}' is no longer ${from}; it changed while this request ran. Fetch it and try again.`,
    );
  if (post.draft_id) await tx.drafts.setStatus(post.draft_id, 'published', when);
  await moveIdeaBySystem(tx, post.idea_id, 'live', when);
  // In the same transaction: the automations hear of the post exactly when it is published.
  await recordEvents(ctx, tx, [
    { name: 'post.published', brandId: post.brand_id, postId: post.id, at: when },
  ]);
}

/** Records why the attempt ended without a post and what happens next; returns the post's fate. */
async function recordFailure(
  ctx: ContentContext,
  post: PostRow,
  attemptId: string,
  err: unknown,
  earlier: string[],
): Promise<'retry' | 'failed' | 'unconfirmed'> {
  const now = ctx.clock.now();
  const e =
    err instanceof PublishError
      ? err
      : new PublishError(
          'failed',
          err instanceof AppError ? err.code : 'PUBLISH_FAILED',
          err instanceof Error ? err.message : String(err),
        );
  const out = e.publishedIds.length ? e.publishedIds : earlier;
  const message = `${e.code}: ${e.message}`;
  return ctx.transaction(async (tx) => {
    const attempts = tx.publishAttempts;
    await attempts.finish(attemptId, {
      outcome: e.outcome,
      finished_at: now.toISOString(),
      external_ids: out,
      error: message,
    });
    const retries = e.outcome === 'retry' ? await attempts.retriesOf(post.id) : 0;
    const fate = e.outcome === 'retry' && retries > MAX_PUBLISH_RETRIES ? 'failed' : e.outcome;
    const patch: Partial<PostRow> = { external_ids: out };
    if (fate === 'retry') {
      const at = e.retryAt ?? new Date(now.getTime() + backoffMs(retries));
      Object.assign(patch, {
        status: 'scheduled',
        retry_at: at.toISOString(),
        notice: `${message} Trying again at ${at.toISOString()}.`,
      });
    } else if (fate === 'unconfirmed') {
      Object.assign(patch, { status: 'unconfirmed', notice: unconfirmedNotice(post.id, message) });
    } else {
      const gaveUp = e.outcome === 'retry' ? ` Gave up after ${retries} tries.` : '';
      const partly = out.length
        ? ` ${out.length} part(s) of the thread are already live: ${out.join(', ')}.`
        : '';
      Object.assign(patch, {
        status: 'failed',
        failure: `${message}${gaveUp}${partly}`,
        notice: null,
        retry_at: null,
      });
    }
    // The post is ours while it is `publishing`: this pass claimed it.
    await tx.posts.updateIf(post.id, 'publishing', patch, now.toISOString());
    return fate;
  });
}

/**
 * At start-up and in each background pass: an attempt without an outcome whose owner is gone (see
 * isAbandoned) means an instance stopped while the platform was being called. The post may be
 * live, so it becomes `unconfirmed`; it is never sent again on its own. Attempts another live
 * instance is still making are left to it.
 */
export async function recoverInterruptedPublishes(ctx: ContentContext): Promise<string[]> {
  const open = (await ctx.stores.publishAttempts.open()).filter((a) => isAbandoned(ctx, a));
  const at = ctx.clock.now().toISOString();
  const recovered: string[] = [];
  for (const a of open) {
    const why = `PUBLISH_UNCONFIRMED: the server stopped while ${a.platform} was being called (attempt started ${a.started_at}); the post may or may not be live.`;
    await ctx.transaction(async (tx) => {
      const ended = await tx.publishAttempts.abandon(a, {
        finished_at: at,
        external_ids: a.external_ids,
        error: why,
      });
      if (!ended) return; // its owner renewed or finished it meanwhile, or another instance recovered it
      await tx.posts.updateIf(
        a.post_id,
        'publishing',
        { status: 'unconfirmed', notice: unconfirmedNotice(a.post_id, why) },
        at,
      );
      recovered.push(a.post_id);
    });
  }
  return recovered;
}

const notUnconfirmed = (id: string, status: string) =>
  conflict(
    'POST_NOT_UNCONFIRMED',
    `Post '${id}' is ${status}; only an unconfirmed post is confirmed by hand.`,
  );

/**
 * POST /v1/posts/:id/confirm: the person settles an `unconfirmed` post. `published: true` makes
 * it published (with `external_id`, checked on the platform when it can look posts up, metrics
 * are read from then on); `published: false` puts it back in the schedule to go out now.
 */
export async function confirmPost(
  ctx: ContentContext,
  id: string,
  input: { published: boolean; external_id?: string | undefined; permalink?: string | undefined },
): Promise<PostView> {
  const post = await requirePost(ctx.stores, id);
  if (post.status !== 'unconfirmed') throw notUnconfirmed(id, post.status);
  const now = ctx.clock.now().toISOString();
  if (!input.published) {
    if (input.external_id || input.permalink)
      throw unprocessable(
        'INVALID_CONFIRMATION',
        "'external_id' and 'permalink' only go with published: true.",
        'external_id',
      );
    // Back in the queue to go out now: it holds no hour, like a post published now.
    const requeued = await ctx.stores.posts.updateIf(
      id,
      'unconfirmed',
      {
        status: 'scheduled',
        scheduled_for: now,
        sort_at: now,
        retry_at: null,
        notice: null,
        slot_hour: null,
      },
      now,
    );
    if (!requeued) throw notUnconfirmed(id, (await requirePost(ctx.stores, id)).status);
    return listOne(ctx, id);
  }
  const earlier = post.external_ids ?? [];
  const externalId = input.external_id ?? earlier[0] ?? null;
  if (externalId && ctx.publisher.exists) {
    const exists = await ctx.publisher.exists({
      channelId: post.channel_id,
      platform: post.platform,
      externalId,
    });
    if (!exists)
      throw conflict(
        'PLATFORM_POST_NOT_FOUND',
        `${post.platform} has no post '${externalId}' on this account; check the id, or confirm with published: false.`,
      );
  }
  const attempts = await ctx.stores.publishAttempts.of(id);
  const when = attempts.at(-1)?.started_at ?? now;
  await ctx.transaction((tx) =>
    markPublished(ctx, tx, post, 'unconfirmed', when, {
      externalId,
      externalIds: externalId ? [externalId, ...earlier.filter((e) => e !== externalId)] : earlier,
      permalink: input.permalink ?? null,
    }),
  );
  await deliverEvents(ctx);
  return listOne(ctx, id);
}

export async function updatePost(
  ctx: ContentContext,
  id: string,
  input: {
    parts?: { text: string }[] | undefined;
    text?: string | undefined;
    scheduled_for?: string | undefined;
  },
): Promise<PostView> {
  const when = input.scheduled_for ? checkFuture(ctx, input.scheduled_for, 'scheduled_for') : null;
  const slotTaken = (channelId: string) =>
    conflict('SLOT_TAKEN', `Channel '${channelId}' already has a post scheduled in that hour.`);
  // Read, check and write in one transaction, and the write only lands while the post is still
  // scheduled: the publishing tick may claim it at any moment.
  await ctx.transaction(async (tx) => {
    const post = await requirePost(tx, id);
    if (post.status !== 'scheduled') throw notEditable(id, post.status);
    const patch: Partial<PostRow> = {};
    if ((input.parts || input.text !== undefined) && (post.external_ids ?? []).length)
      throw conflict(
        'POST_PARTLY_PUBLISHED',
        `Post '${id}' already has parts on ${post.platform}; its text can no longer change.`,
      );
    if (input.parts || input.text !== undefined) {
      const old = post.parts;
      const parts = partsFromInput(input).map((text, i) => ({
        text,
        media: i === 0 ? (old[0]?.media ?? []) : [],
      }));
      checkParts(post.platform, parts);
      patch.parts = parts;
    }
    if (when) {
      const sameHour = post.slot_hour === slotHourOf(when.toISOString());
      if (!sameHour && (await isSlotTaken(tx, post.channel_id, when, { postsOnly: true })))
        throw slotTaken(post.channel_id);
      patch.scheduled_for = when.toISOString();
      patch.sort_at = when.toISOString();
    }
    const at = ctx.clock.now().toISOString();
    if (!(await tx.posts.updateIf(id, 'scheduled', patch, at, () => slotTaken(post.channel_id))))
      throw notEditable(id, (await requirePost(tx, id)).status);
  });
  return (await listOne(ctx, id)) as PostView;
}

const notEditable = (id: string, status: string) =>
  conflict('POST_NOT_EDITABLE', `Post '${id}' is ${status}; only scheduled posts can be changed.`);

const notScheduled = (id: string, status: string) =>
  conflict('POST_NOT_SCHEDULED', `Post '${id}' is ${status}; only a scheduled post can be published now.`);

/**
 * POST /v1/posts/:id/publish: a scheduled post goes out now instead of at its time. Its time
 * becomes now first (and, like any post published now, it gives up the hour it held), written only
 * while it is still scheduled, so if publishing is refused or interrupted the post is simply due and
 * the next pass retries it like any other; publishPosts claims it before calling the platform, so a
 * background pass running at the same moment cannot send it a second time.
 */
export async function publishNow(ctx: ContentContext, id: string): Promise<PostView> {
  const now = ctx.clock.now().toISOString();
  const due = await ctx.transaction(async (tx) => {
    const post = await requirePost(tx, id);
    if (post.status !== 'scheduled') throw notScheduled(id, post.status);
    ctx.publisher.assertCanPublish(post.platform);
    const patch = { scheduled_for: now, sort_at: now, slot_hour: null };
    if (!(await tx.posts.updateIf(id, 'scheduled', patch, now)))
      throw notScheduled(id, (await requirePost(tx, id)).status);
    return { ...post, ...patch };
  });
  await publishPosts(ctx, [due], { inRequest: true });
  return (await listOne(ctx, id)) as PostView;
}

async function listOne(ctx: ContentContext, id: string) {
  return viewOf(ctx.stores, await requirePost(ctx.stores, id));
}

/**
 * A scheduled or failed post can be deleted (its draft and idea step back). A published one
 * cannot: the service has no way to take it down from the platform, and its numbers are history.
 */
export async function deletePost(ctx: ContentContext, id: string): Promise<void> {
  // The status is read and the row deleted in one transaction, and the delete itself refuses a
  // post on the platform: if the publishing tick claimed it after any earlier read, deleting it
  // would leave a live post with no local record (and no publish attempt).
  await ctx.transaction(async (tx) => {
    const post = await requirePost(tx, id);
    const at = ctx.clock.now().toISOString();
    if (!(await tx.posts.removeUnlessLive(id))) throw notDeletable(post);
    if (post.draft_id) await tx.drafts.setStatus(post.draft_id, 'draft', at);
    await moveIdeaBySystem(tx, post.idea_id, 'approved', at);
  });
}

function notDeletable(post: PostRow) {
  if (post.status === 'publishing')
    return conflict(
      'POST_PUBLISHING',
      `Post '${post.id}' is being published right now; try again in a moment.`,
    );
  return conflict(
    'POST_ALREADY_PUBLISHED',
    `Post '${post.id}' is published; deleting it here would not remove it from ${post.platform}. Delete it on the platform.`,
  );
}

/**
 * POST /v1/posts/:id/resolve: stop tracking the post and make its outcome final now.
 * A sandbox post first gets every snapshot it has come due for plus a final one at the whole
 * hour it has reached, so the outcome is judged on its numbers as of now; after that it grows
 * no more. A post without any metrics has nothing to settle (409 NOTHING_TO_SETTLE): in the
 * sandbox that is the first hour after publishing. Resolving a settled post returns its outcome.
 */
export async function resolvePost(ctx: ContentContext, id: string): Promise<OutcomeView> {
  const post = await requirePost(ctx.stores, id);
  if (post.status !== 'published')
    throw conflict(
      'POST_NOT_PUBLISHED',
      `Post '${id}' is ${post.status}; only published posts have an outcome.`,
    );
  if (post.settled_at === null) {
    const now = ctx.clock.now();
    const store = ctx.stores.posts;
    const have = new Set((await store.snapshots(post.id)).map((s) => `${s.post_id}:${s.age_h}`));
    if (isSandboxPost(post)) {
      const age = ageAt(post, now);
      const ages = [...new Set([...dueAges(post, now), ...(age >= 1 ? [age] : [])])];
      await ctx.transaction((tx) => takeSimulatedSnapshots(ctx, tx, post, ages, have));
    }
    if ((await store.snapshots(post.id)).length === 0) {
      const first = new Date(Date.parse(post.published_at ?? '') + SNAPSHOT_AGES_H[0] * HOUR).toISOString();
      throw conflict(
        'NOTHING_TO_SETTLE',
        isSandboxPost(post)
          ? `Post '${id}' has no metrics yet; its first snapshot is taken ${SNAPSHOT_AGES_H[0]} h after publishing (${first}). Resolve it after that.`
          : `Post '${id}' has no metrics yet, so there is no outcome to settle.`,
      );
    }
    await settle(ctx, [post]);
  }
  const fresh = await requirePost(ctx.stores, id);
  // Its own snapshots and the brand's stored baselines, not every snapshot of the brand.
  const { outcome } = await postOutcome(ctx.stores, fresh);
  return { post_id: fresh.id, ...outcome, settled: fresh.settled_at !== null };
}

export async function settle(
  ctx: ContentContext,
  posts: PostRow[],
  at?: (p: PostRow) => string,
): Promise<string[]> {
  const candidates = posts.filter((p) => p.settled_at === null && p.status === 'published');
  if (candidates.length === 0) return [];
  // Only the posts this call settled record `post.metrics_settled`, in the transaction that
  // settles them: a concurrent resolve (or a pass on another instance) that settled one first
  // has already told the automations.
  const fresh: PostRow[] = [];
  await ctx.transaction(async (tx) => {
    const now = ctx.clock.now().toISOString();
    for (const p of candidates) {
      if (!(await tx.posts.settleIf(p.id, at ? at(p) : now, now))) continue;
      fresh.push(p);
      await recordEvents(ctx, tx, [
        { name: 'post.metrics_settled', brandId: p.brand_id, postId: p.id, at: at ? at(p) : now },
      ]);
    }
  });
  if (fresh.length) await deliverEvents(ctx);
  return fresh.map((p) => p.id);
}

/**
 * POST /v1/brands/:id/outcomes: one page of the brand's published posts, newest first (as
 * `GET /v1/posts` lists them), each past the settle age settled first, with its outcome. Paged,
 * because a brand with 100,000 posts would otherwise make one answer of 100,000 outcomes, read
 * every post and snapshot into memory, and settle them all in one transaction
 * (docs/content/resources.md, "Outcomes are paged"). Walking the pages settles what the whole list
 * did; the background pass settles the rest anyway.
 */
export async function resolveOutcomes(
  ctx: ContentContext,
  brandId: string,
  opts: { limit: number; after?: string | undefined },
): Promise<Page<OutcomeView>> {
  const page = await ctx.stores.posts.list({ brandId, status: 'published' }, opts.limit, opts.after);
  // A page with posts proves the brand is there (ON DELETE CASCADE), as in listPosts.
  if (page.items.length === 0) await requireBrand(ctx, brandId);
  const posts = page.items;
  const now = ctx.clock.now();
  const cutoff = now.getTime() - SETTLE_AGE_H * HOUR;
  const due = posts.filter((p) => p.settled_at === null && Date.parse(p.published_at ?? '') <= cutoff);
  // Settled with their full curve up to 72 h, even when the background tick has not caught up.
  const sandbox = due.filter(isSandboxPost);
  if (sandbox.length) {
    const have = new Set(
      (await ctx.stores.posts.snapshotsOf(sandbox.map((p) => p.id))).map((s) => `${s.post_id}:${s.age_h}`),
    );
    await ctx.transaction(async (tx) => {
      for (const p of sandbox) await takeSimulatedSnapshots(ctx, tx, p, dueAges(p, now), have);
    });
  }
  const settled = new Set(await settle(ctx, due));
  const outcomes = await outcomesOf(ctx.stores, posts);
  return {
    items: posts.map((p): OutcomeView => {
      const o = outcomes.get(p.id)?.outcome;
      if (!o) throw new Error(`outcomesOf left out post '${p.id}'`);
      return { post_id: p.id, ...o, settled: settled.has(p.id) || p.settled_at !== null };
    }),
    has_more: page.has_more,
    next_after: page.next_after,
  };
}

export async function listReplies(
  ctx: ContentContext,
  postId: string,
  filter: { theme?: string | undefined },
  opts: { limit: number; after?: string | undefined },
) {
  await requirePost(ctx.stores, postId);
  const page = await ctx.stores.posts.replies(postId, filter, opts.limit, opts.after);
  return {
    ...page,
    items: page.items.map((r) => ({
      id: r.id,
      post_id: r.post_id,
      author: r.author,
      text: r.text,
      theme: r.theme as 'question',
      created_at: r.created_at,
    })),
  };
}
