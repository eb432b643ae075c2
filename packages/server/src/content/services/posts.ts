import { HOUR } from '../../platform/clock.js';
import type { SqlExecutor } from '../../platform/db/sqlite.js';
import { AppError, notFound } from '../../platform/errors.js';
import type { Caller, ContentContext } from '../context.js';
import { channelsStore } from '../db/stores/channels-store.js';
import { draftsStore } from '../db/stores/drafts-store.js';
import { fromJson, toJson } from '../db/stores/paging.js';
import { type PostRow, postsStore } from '../db/stores/posts-store.js';
import { type Platform, type PostStatus, SETTLE_AGE_H, SNAPSHOT_AGES_H } from '../domain.js';
import { type ContentEvent, emit } from '../events.js';
import type { Page } from '../schemas/common.js';
import type { OutcomeView, PostView } from '../schemas/posts.js';
import { isSlotTaken } from './best-times.js';
import { requireBrand } from './brands.js';
import { requireConnectedChannel } from './channels.js';
import { checkParts, partsFromInput } from './drafts.js';
import { conflict, unprocessable } from './errors.js';
import { moveIdeaBySystem } from './ideas.js';
import { baselineCurve, outcomeOf, type SnapshotWithPlatform } from './metrics.js';
import { ageAt, dueAges, takeSimulatedSnapshots } from './snapshots.js';
import { isSandboxPost, metricsView, partsView, type StoredPart } from './views.js';

export async function requirePost(db: SqlExecutor, id: string): Promise<PostRow> {
  const post = await postsStore(db).get(id);
  if (!post) throw notFound('post', id);
  return post;
}

function view(p: PostRow, snaps: SnapshotWithPlatform[]): PostView {
  const own = snaps.filter((s) => s.post_id === p.id);
  const latest = own[own.length - 1];
  return {
    id: p.id,
    brand_id: p.brand_id,
    channel_id: p.channel_id,
    platform: p.platform as Platform,
    status: p.status as PostStatus,
    parts: partsView(p.parts),
    draft_id: p.draft_id,
    draft_version: p.draft_version,
    idea_id: p.idea_id,
    scheduled_for: p.scheduled_for,
    published_at: p.published_at,
    permalink: p.permalink,
    sandbox: isSandboxPost(p),
    failure: p.failure,
    metrics: latest ? metricsView(latest) : null,
    verdict: p.status === 'published' ? outcomeOf(own, snaps, p.platform, p.id).verdict : 'too_early',
    settled_at: p.settled_at,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

/** Snapshots of every brand on the page: one query per brand, not one per post. */
async function snapshotsFor(db: SqlExecutor, posts: PostRow[]): Promise<SnapshotWithPlatform[]> {
  const out: SnapshotWithPlatform[] = [];
  for (const brandId of new Set(posts.map((p) => p.brand_id)))
    out.push(...(await postsStore(db).brandSnapshots(brandId)));
  return out;
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
  if (filter.brand_id) await requireBrand(ctx, filter.brand_id);
  const page = await postsStore(ctx.db).list(
    {
      brandId: filter.brand_id,
      status: filter.status,
      channelId: filter.channel_id,
      platform: filter.platform,
    },
    opts.limit,
    opts.after,
  );
  const snaps = await snapshotsFor(ctx.db, page.items);
  return { ...page, items: page.items.map((p) => view(p, snaps)) };
}

/** `get_post`: the post with its outcome, growth curve (snapshots) and the brand's baseline curve. */
export async function getPost(ctx: ContentContext, id: string) {
  const post = await requirePost(ctx.db, id);
  const snaps = await postsStore(ctx.db).brandSnapshots(post.brand_id);
  const own = snaps.filter((s) => s.post_id === post.id);
  const base = view(post, snaps);
  const outcome = outcomeFor(post, snaps);
  return {
    ...base,
    outcome,
    growth: own.map(metricsView),
    baseline: baselineCurve(snaps, post.platform, post.id).curve.map((c) => ({
      age_h: c.age_h,
      engagements: c.engagements,
    })),
  };
}

function outcomeFor(post: PostRow, snaps: SnapshotWithPlatform[]): OutcomeView {
  const own = snaps.filter((s) => s.post_id === post.id);
  const o =
    post.status === 'published'
      ? outcomeOf(own, snaps, post.platform, post.id)
      : {
          verdict: 'too_early' as const,
          ratio: null,
          age_h: null,
          engagements: null,
          baseline_engagements: null,
          compared_with: 0,
        };
  return { post_id: post.id, ...o, settled: post.settled_at !== null };
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
    draft = await draftsStore(ctx.db).get(input.draft_id);
    if (!draft) throw notFound('draft', input.draft_id);
    if (draft.status === 'scheduled' || draft.status === 'published')
      throw conflict('DRAFT_LOCKED', `Draft '${draft.id}' is already ${draft.status}.`);
    if (draft.status === 'proposed')
      throw conflict(
        'ALREADY_PROPOSED',
        `Draft '${draft.id}' has a pending approval; approve or reject it instead.`,
      );
    brandId = draft.brand_id;
    platform = draft.platform as Platform;
    parts = fromJson<StoredPart[]>(draft.parts);
  } else {
    if (!input.channel_id)
      throw new AppError(400, 'INVALID_REQUEST', "'channel_id' is required when posting without a draft.", {
        param: 'channel_id',
      });
    const ch = await channelsStore(ctx.db).get(input.channel_id);
    if (!ch) throw notFound('channel', input.channel_id);
    brandId = ch.brand_id;
    platform = ch.platform as Platform;
    parts = partsFromInput(input).map((text) => ({ text, media: [] }));
  }
  const channel = await requireConnectedChannel(ctx, brandId, platform, input.channel_id);
  checkParts(platform, parts);
  ctx.publisher.assertCanPublish(platform);
  const when = input.scheduled_for ? checkFuture(ctx, input.scheduled_for, 'scheduled_for') : null;
  if (when && (await isSlotTaken(ctx.db, channel.id, when, { postsOnly: true })))
    throw conflict(
      'SLOT_TAKEN',
      `Channel '${channel.id}' already has a post scheduled in the hour of ${when.toISOString()}.`,
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
    parts: toJson(parts),
    scheduled_for: when ? when.toISOString() : now,
    published_at: null,
    sort_at: when ? when.toISOString() : now,
    permalink: null,
    external_id: null,
    failure: null,
    settled_at: null,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.transaction(async (tx) => {
    await postsStore(tx).insert(row);
    if (draft) await draftsStore(tx).setStatus(draft.id, 'scheduled', now);
    await moveIdeaBySystem(tx, row.idea_id, 'scheduled', now);
  });
  if (!when) await publishPosts(ctx, [row]);
  return view(
    (await postsStore(ctx.db).get(id)) as PostRow,
    await postsStore(ctx.db).brandSnapshots(brandId),
  );
}

/**
 * Publishes scheduled posts through the publisher. The network call (none in sandbox) happens
 * outside any transaction; each post is then marked published or failed on its own.
 */
export async function publishPosts(
  ctx: ContentContext,
  due: PostRow[],
): Promise<{ published: string[]; failed: string[] }> {
  const published: string[] = [];
  const failed: string[] = [];
  const events: ContentEvent[] = [];
  for (const post of due) {
    const channel = await channelsStore(ctx.db).get(post.channel_id);
    const parts = fromJson<StoredPart[]>(post.parts);
    // A scheduled post publishes at its slot, so its age and metrics line up with the timeline.
    const when = post.scheduled_for ?? ctx.clock.now().toISOString();
    try {
      if (channel?.status !== 'connected')
        throw conflict('CHANNEL_DISCONNECTED', 'The channel was disconnected.');
      const result = await ctx.publisher.publish({
        postId: post.id,
        platform: post.platform as Platform,
        channelHandle: channel.handle,
        parts: parts.map((p) => p.text),
        mediaUrls: parts[0]?.media.map((m) => m.url ?? '').filter(Boolean) ?? [],
      });
      await ctx.db.transaction(async (tx) => {
        await postsStore(tx).update(
          post.id,
          {
            status: 'published',
            published_at: when,
            sort_at: when,
            permalink: result.permalink,
            external_id: result.externalId,
          },
          ctx.clock.now().toISOString(),
        );
        if (post.draft_id) await draftsStore(tx).setStatus(post.draft_id, 'published', when);
        await moveIdeaBySystem(tx, post.idea_id, 'live', when);
      });
      published.push(post.id);
      events.push({ name: 'post.published', brandId: post.brand_id, postId: post.id, at: when });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await postsStore(ctx.db).update(
        post.id,
        { status: 'failed', failure: message },
        ctx.clock.now().toISOString(),
      );
      failed.push(post.id);
    }
  }
  await emit(ctx.events, events);
  return { published, failed };
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
  const post = await requirePost(ctx.db, id);
  if (post.status !== 'scheduled')
    throw conflict(
      'POST_NOT_EDITABLE',
      `Post '${id}' is ${post.status}; only scheduled posts can be changed.`,
    );
  const patch: Partial<PostRow> = {};
  if (input.parts || input.text !== undefined) {
    const old = fromJson<StoredPart[]>(post.parts);
    const parts = partsFromInput(input).map((text, i) => ({
      text,
      media: i === 0 ? (old[0]?.media ?? []) : [],
    }));
    checkParts(post.platform as Platform, parts);
    patch.parts = toJson(parts);
  }
  if (input.scheduled_for) {
    const when = checkFuture(ctx, input.scheduled_for, 'scheduled_for');
    const sameHour =
      Math.floor(when.getTime() / HOUR) === Math.floor(Date.parse(post.scheduled_for ?? '') / HOUR);
    if (!sameHour && (await isSlotTaken(ctx.db, post.channel_id, when, { postsOnly: true })))
      throw conflict('SLOT_TAKEN', `Channel '${post.channel_id}' already has a post scheduled in that hour.`);
    patch.scheduled_for = when.toISOString();
    patch.sort_at = when.toISOString();
  }
  await postsStore(ctx.db).update(id, patch, ctx.clock.now().toISOString());
  return (await listOne(ctx, id)) as PostView;
}

async function listOne(ctx: ContentContext, id: string) {
  const post = await requirePost(ctx.db, id);
  return view(post, await postsStore(ctx.db).brandSnapshots(post.brand_id));
}

/**
 * A scheduled or failed post can be deleted (its draft and idea step back). A published one
 * cannot: the service has no way to take it down from the platform, and its numbers are history.
 */
export async function deletePost(ctx: ContentContext, id: string): Promise<void> {
  const post = await requirePost(ctx.db, id);
  if (post.status === 'published')
    throw conflict(
      'POST_ALREADY_PUBLISHED',
      `Post '${id}' is published; deleting it here would not remove it from ${post.platform}. Delete it on the platform.`,
    );
  await ctx.db.transaction(async (tx) => {
    const at = ctx.clock.now().toISOString();
    await postsStore(tx).remove(id);
    if (post.draft_id) await draftsStore(tx).setStatus(post.draft_id, 'draft', at);
    await moveIdeaBySystem(tx, post.idea_id, 'approved', at);
  });
}

/**
 * POST /v1/posts/:id/resolve: stop tracking the post and make its outcome final now.
 * A sandbox post first gets every snapshot it has come due for plus a final one at the whole
 * hour it has reached, so the outcome is judged on its numbers as of now; after that it grows
 * no more. A post without any metrics has nothing to settle (409 NOTHING_TO_SETTLE): in the
 * sandbox that is the first hour after publishing. Resolving a settled post returns its outcome.
 */
export async function resolvePost(ctx: ContentContext, id: string): Promise<OutcomeView> {
  const post = await requirePost(ctx.db, id);
  if (post.status !== 'published')
    throw conflict(
      'POST_NOT_PUBLISHED',
      `Post '${id}' is ${post.status}; only published posts have an outcome.`,
    );
  if (post.settled_at === null) {
    const now = ctx.clock.now();
    const store = postsStore(ctx.db);
    const have = new Set((await store.snapshots(post.id)).map((s) => `${s.post_id}:${s.age_h}`));
    if (isSandboxPost(post)) {
      const age = ageAt(post, now);
      const ages = [...new Set([...dueAges(post, now), ...(age >= 1 ? [age] : [])])];
      await ctx.db.transaction((tx) => takeSimulatedSnapshots(ctx, tx, post, ages, have));
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
  const fresh = await requirePost(ctx.db, id);
  return outcomeFor(fresh, await postsStore(ctx.db).brandSnapshots(post.brand_id));
}

export async function settle(
  ctx: ContentContext,
  posts: PostRow[],
  at?: (p: PostRow) => string,
): Promise<string[]> {
  const fresh = posts.filter((p) => p.settled_at === null && p.status === 'published');
  if (fresh.length === 0) return [];
  await ctx.db.transaction(async (tx) => {
    for (const p of fresh)
      await postsStore(tx).update(
        p.id,
        { settled_at: at ? at(p) : ctx.clock.now().toISOString() },
        ctx.clock.now().toISOString(),
      );
  });
  await emit(
    ctx.events,
    fresh.map((p) => ({
      name: 'post.metrics_settled' as const,
      brandId: p.brand_id,
      postId: p.id,
      at: at ? at(p) : ctx.clock.now().toISOString(),
    })),
  );
  return fresh.map((p) => p.id);
}

/**
 * POST /v1/brands/:id/outcomes: settles every published post past the settle age and returns
 * the outcome of each published post, newest first.
 */
export async function resolveOutcomes(ctx: ContentContext, brandId: string): Promise<OutcomeView[]> {
  await requireBrand(ctx, brandId);
  const posts = await postsStore(ctx.db).publishedOf(brandId);
  const now = ctx.clock.now();
  const cutoff = now.getTime() - SETTLE_AGE_H * HOUR;
  const due = posts.filter((p) => p.settled_at === null && Date.parse(p.published_at ?? '') <= cutoff);
  // Settled with their full curve up to 72 h, even when the background tick has not caught up.
  const sandbox = due.filter(isSandboxPost);
  if (sandbox.length) {
    const have = new Set(
      (await postsStore(ctx.db).snapshotsOf(sandbox.map((p) => p.id))).map((s) => `${s.post_id}:${s.age_h}`),
    );
    await ctx.db.transaction(async (tx) => {
      for (const p of sandbox) await takeSimulatedSnapshots(ctx, tx, p, dueAges(p, now), have);
    });
  }
  const settled = new Set(await settle(ctx, due));
  const snaps = await postsStore(ctx.db).brandSnapshots(brandId);
  const at = now.toISOString();
  return posts.map((p) => outcomeFor(settled.has(p.id) ? { ...p, settled_at: at } : p, snaps)).reverse();
}

export async function listReplies(
  ctx: ContentContext,
  postId: string,
  filter: { theme?: string | undefined },
  opts: { limit: number; after?: string | undefined },
) {
  await requirePost(ctx.db, postId);
  const page = await postsStore(ctx.db).replies(postId, filter, opts.limit, opts.after);
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
