import { setTimeout as sleep } from 'node:timers/promises';
import { DAY, HOUR } from '../../platform/clock.js';
import { APP_CALLER, type ContentContext } from '../context.js';
import type { ContentStores } from '../db/stores/index.js';
import type { MetricsRow, ReplyRow } from '../db/stores/posts-store.js';
import { SETTLE_AGE_H, SNAPSHOT_AGES_H } from '../domain.js';
import { simulatedModel } from '../model/simulated.js';
import { runAgent } from '../services/agent-runs.js';
import { proposePost } from '../services/approvals.js';
import { createAutomation } from '../services/automations.js';
import { rebuildBaselines } from '../services/baselines.js';
import { nextFreeSlot } from '../services/best-times.js';
import { createBrand } from '../services/brands.js';
import { addCanvasNote, createCampaign } from '../services/campaigns.js';
import { connectChannel } from '../services/channels.js';
import { generateDrafts } from '../services/drafts.js';
import { createIdea, suggestIdeas } from '../services/ideas.js';
import { simulatedCounts, simulatedQuality } from '../services/metrics.js';
import { simulatedReplies } from '../services/snapshots.js';
import { pick, seededRandom } from '../text.js';
import {
  BODIES,
  CLOSERS,
  DEMO_BRAND,
  DEMO_MEMORY,
  HOOKS,
  SIGNALS,
  TAG_SETS,
  TOPICS,
} from './demo-content.js';

const SEED = 20260105;
export const DEMO_POSTS = 60;
const HOURS = [8, 9, 10, 12, 13, 15, 17, 19, 21];

const DONE = 'demo_seeded';
/** Set while a seed is being written: `{ started_at, brand_id }`. Gone once it is complete. */
const PENDING = 'demo_seed_pending';

/** Held by the one instance writing the demo; every other instance starting beside it waits. */
export const SEED_LEASE = 'content:demo-seed';
/**
 * How long the seed lease lasts without a heartbeat: a seeder killed on another machine frees it
 * after this (one killed on this machine, at once: see leases-store.ts). Long beside the
 * heartbeat (20 s), so a seeder whose heartbeat is late (a loaded host) keeps it. It runs on the
 * database's clock (lease-clock.ts), so the machines' clocks do not shorten it.
 */
export const SEED_LEASE_MS = 2 * 60_000;
/** The holder extends the lease this often, so a seed of any length (a slow disk, a loaded host) keeps it. */
const SEED_HEARTBEAT_MS = 20_000;
/** How often a waiting instance looks again for the finished demo or a free lease. */
const SEED_POLL_MS = 100;
/** The longest pause between two tries when the database fails (the pause doubles up to it). */
const SEED_RETRY_MAX_MS = 5_000;
/** How long the database may keep failing before the wait gives up (logged; the workspace starts empty). */
const SEED_WAIT_FAILING_MS = 2 * 60_000;

/**
 * Seeds one demo brand on the first start of an empty sandbox workspace: Brand Memory, two
 * sandbox channels, 60 published posts over the last 8 weeks with metrics snapshots and
 * replies, signals, ideas, a draft awaiting approval, a campaign, an automation and a digest.
 * Content comes from a fixed-seed PRNG and the simulated model, so every fresh demo reads the
 * same, whatever SERVICE_MODEL says.
 *
 * One seeder in the deployment. Two instances may start together on one fresh database; each
 * would see an empty workspace and write a demo, or take the other's half-written one for a
 * crash's leftovers and delete it. So the seed runs under a lease (SEED_LEASE) that its holder
 * extends while it writes; the others poll until the demo is done (their requests wait, as on a
 * single instance) or the lease is free again, because its holder failed or died.
 *
 * All or nothing. The seed spans many services (each with its own transaction), so it is
 * bracketed by markers instead of one transaction: `demo_seed_pending` names the brand while
 * it is written, and `demo_seeded` is set, with the pending marker cleared, in one transaction
 * at the end. A failure deletes the half-written brand at once; a crash leaves the pending
 * marker, and the next instance to hold the lease (a waiting one, or the next start) deletes
 * what it names and seeds again before serving requests.
 *
 * `stopped` ends a wait for another instance's seed (this one is shutting down); a seed this
 * instance is writing is finished first.
 */
export async function seedDemoWorkspace(
  ctx: ContentContext,
  opts: { stopped?: () => boolean } = {},
): Promise<boolean> {
  if (ctx.config.mode !== 'sandbox' || ctx.config.seed === 'none') return false;
  const lease = seedLease(ctx);
  // A database that fails while this instance looks (a restart, a failover) is asked again, with
  // a growing pause: giving up at once let requests in on an empty workspace while another
  // instance was still writing the demo. Failing for SEED_WAIT_FAILING_MS (monotonic) ends it.
  let failingSince: number | null = null;
  let pause = SEED_POLL_MS;
  for (;;) {
    try {
      // A restart of a seeded workspace ends here at once, without the lease.
      if (await ctx.stores.meta.get(DONE)) return false;
      if (await lease.take()) break;
      failingSince = null;
      pause = SEED_POLL_MS;
    } catch (err) {
      failingSince ??= ctx.stopwatch();
      if (ctx.stopwatch() - failingSince >= SEED_WAIT_FAILING_MS)
        throw new Error(
          `could not read the database for ${SEED_WAIT_FAILING_MS / 1000} s while looking for the demo seed; check SERVICE_DATABASE_URL and that the database is up, then restart`,
          { cause: err },
        );
      ctx.logger.warn({ err }, `could not check on the demo seed; asking again in ${pause} ms`);
      pause = Math.min(pause * 2, SEED_RETRY_MAX_MS);
    }
    if (opts.stopped?.()) return false;
    await sleep(pause);
  }
  const heartbeat = setInterval(() => {
    lease.renew().catch((err: unknown) => ctx.logger.warn({ err }, 'could not extend the demo seed lease'));
  }, SEED_HEARTBEAT_MS);
  heartbeat.unref();
  try {
    return await seedHolding(ctx, lease);
  } finally {
    clearInterval(heartbeat);
    await lease.release();
  }
}

type SeedLease = ReturnType<typeof seedLease>;

/** This instance's hold on SEED_LEASE, on the database's clock (lease-clock.ts), never the sandbox clock. */
function seedLease(ctx: ContentContext) {
  const leases = ctx.stores.leases;
  const owner = `${ctx.instanceId}/seed`;
  const dialect = ctx.db.dialect;
  return {
    take: () => leases.take(SEED_LEASE, owner, SEED_LEASE_MS, dialect),
    /** False once the lease ran out (taken over or not): this one must stop writing. */
    renew: (tx: ContentStores = ctx.stores) => tx.leases.renew(SEED_LEASE, owner, SEED_LEASE_MS, dialect),
    release: () => leases.release(SEED_LEASE, owner),
  };
}

/** What a seeder that lost its lease (paused past SEED_LEASE_MS) throws instead of writing on. */
const leaseLost = () =>
  new Error(
    `the demo seed lease ran out while this instance was writing (paused for over ${SEED_LEASE_MS / 1000} s?); another instance seeds instead`,
  );

/** The seed proper, run only while this instance holds SEED_LEASE. */
async function seedHolding(ctx: ContentContext, lease: SeedLease): Promise<boolean> {
  const meta = ctx.stores.meta;
  // Whoever wrote a pending marker no longer holds the lease we hold now: it died mid-seed.
  await discardHalfSeed(ctx);
  if ((await meta.get(DONE)) || (await ctx.stores.brands.list(1)).items.length > 0) return false;
  const startedAt = ctx.clock.now().toISOString();
  let written: string | null = null;
  const mark = async (brandId: string | null) => {
    written = brandId;
    // Naming our brand in the marker would otherwise overwrite the marker of whoever took over.
    if (brandId && !(await lease.renew())) throw leaseLost();
    await meta.set(PENDING, JSON.stringify({ started_at: startedAt, brand_id: brandId }));
  };
  await mark(null);
  // The demo is fixture content: written by the deterministic simulated model in every setting.
  const seedCtx: ContentContext = { ...ctx, model: simulatedModel };
  try {
    await writeDemo(seedCtx, mark);
    await ctx.transaction(async (tx) => {
      // In the same transaction as the markers, so a seeder that lost its lease cannot finish.
      if (!(await lease.renew(tx))) throw leaseLost();
      await tx.meta.set(DONE, ctx.clock.now().toISOString());
      await tx.meta.delete(PENDING);
    });
    return true;
  } catch (err) {
    // Still ours: the markers are ours too. Lost: only our own brand is ours to delete.
    if (await lease.renew().catch(() => false)) await discardHalfSeed(ctx);
    else if (written) await ctx.stores.brands.remove(written);
    throw err;
  }
}

/** Deletes a seed that did not complete (its brand cascades to everything it owns). Call it holding SEED_LEASE. */
async function discardHalfSeed(ctx: ContentContext): Promise<void> {
  const meta = ctx.stores.meta;
  const pending = await meta.get(PENDING);
  if (pending === null) return;
  const { started_at, brand_id } = JSON.parse(pending) as { started_at: string; brand_id: string | null };
  // A crash between creating the brand and recording its id leaves an unnamed demo brand.
  const ids = new Set(brand_id ? [brand_id] : []);
  for (const b of (await ctx.stores.brands.list(100)).items)
    if (b.name === DEMO_BRAND && b.created_at >= started_at) ids.add(b.id);
  await ctx.transaction(async (tx) => {
    for (const id of ids) await tx.brands.remove(id);
    await tx.meta.delete(PENDING);
  });
  ctx.logger.warn({ brands: [...ids] }, 'removed a demo seed that did not complete');
}

async function writeDemo(ctx: ContentContext, mark: (brandId: string) => Promise<void>): Promise<void> {
  const rand = seededRandom(SEED);
  const brand = await createBrand(ctx, { name: DEMO_BRAND, memory: DEMO_MEMORY });
  await mark(brand.id);
  const x = (
    await connectChannel(ctx, brand.id, { platform: 'x', handle: 'fieldnote', display_name: 'Fieldnote' })
  ).channel;
  const li = (
    await connectChannel(ctx, brand.id, {
      platform: 'linkedin',
      handle: 'fieldnote-app',
      display_name: 'Fieldnote',
    })
  ).channel;
  if (!x || !li) throw new Error('demo channels were not created');

  const now = ctx.clock.now().getTime();
  await ctx.transaction(async (tx) => {
    const posts = tx.posts;
    // Written after the posts in a few multi-row statements, not one round trip per row.
    const snapshots: MetricsRow[] = [];
    const replies: ReplyRow[] = [];
    for (let i = 0; i < DEMO_POSTS; i++) {
      const channel = i % 2 === 0 ? x : li;
      const platform = channel.platform;
      const day = new Date(now - Math.round(((DEMO_POSTS - i) * 56 * DAY) / DEMO_POSTS));
      day.setHours(pick(HOURS, Math.floor(rand() * 1000)), 0, 0, 0);
      const at = Math.min(day.getTime(), now - 2 * HOUR);
      const topic = pick(TOPICS, Math.floor(rand() * 1000));
      const hook = pick(HOOKS, Math.floor(rand() * 1000))(topic);
      const tags =
        platform === 'x' ? pick(TAG_SETS.slice(0, 3), i) : pick(TAG_SETS, Math.floor(rand() * 1000));
      const text = [hook, platform === 'linkedin' ? pick(BODIES, i) : '', pick(CLOSERS, i), tags]
        .filter(Boolean)
        .join('\n\n')
        .slice(0, platform === 'x' ? 280 : 3000);
      const id = ctx.ids.make('post');
      const iso = new Date(at).toISOString();
      const age = (now - at) / HOUR;
      await posts.insert({
        id,
        brand_id: brand.id,
        channel_id: channel.id,
        platform,
        draft_id: null,
        draft_version: null,
        idea_id: null,
        status: 'published',
        parts: [{ text, media: [] }],
        scheduled_for: iso,
        published_at: iso,
        sort_at: iso,
        permalink: `https://sandbox.svc.local/${platform}/${channel.handle}/${id}`,
        external_id: `sandbox-${id}`,
        failure: null,
        settled_at: age >= SETTLE_AGE_H ? new Date(at + SETTLE_AGE_H * HOUR).toISOString() : null,
        created_at: iso,
        updated_at: iso,
      });
      const quality = simulatedQuality(id, text, false, platform, new Date(at));
      for (const a of SNAPSHOT_AGES_H) {
        if (a > age) break;
        const counts = simulatedCounts(id, platform, quality, a);
        snapshots.push({
          post_id: id,
          age_h: a,
          taken_at: new Date(at + a * HOUR).toISOString(),
          ...counts,
        });
        if (a === 24)
          for (const [n, r] of simulatedReplies(id, counts.comments).entries())
            replies.push({
              id: ctx.ids.make('rpl'),
              post_id: id,
              brand_id: brand.id,
              author: r.author,
              text: r.text,
              theme: r.theme,
              created_at: new Date(at + (2 + n * 3) * HOUR).toISOString(),
            });
      }
    }
    await posts.addSnapshots(snapshots);
    await posts.addReplies(replies);
    // The brand's baselines are built from the snapshots once, not per snapshot.
    await rebuildBaselines(tx, brand.id);
    for (const [i, s] of SIGNALS.entries())
      await tx.signals.insert({
        id: ctx.ids.make('sig'),
        brand_id: brand.id,
        kind: s.kind,
        title: s.title,
        summary: s.summary,
        source_url: null,
        strength: s.strength,
        observed_at: new Date(now - (i + 1) * DAY).toISOString(),
        created_at: new Date(now - (i + 1) * DAY).toISOString(),
      });
  });

  const campaign = await createCampaign(ctx, {
    brand_id: brand.id,
    name: 'Meeting-free March',
    goal: 'Show teams how to replace one meeting a week with writing.',
  });
  const ideas = await suggestIdeas(
    ctx,
    { brand_id: brand.id, count: 3, campaign_id: campaign.id },
    APP_CALLER,
  );
  await createIdea(
    ctx,
    { brand_id: brand.id, title: 'Our own decision log, one year in', angle: 'Behind the scenes' },
    APP_CALLER,
  );
  const first = ideas[0];
  if (first) {
    const drafts = await generateDrafts(ctx, { idea_id: first.id, platforms: ['x', 'linkedin'] }, APP_CALLER);
    const linkedin = drafts.find((d) => d.platform === 'linkedin');
    if (linkedin) {
      // The next best-time slot at least a day out, so the demo's approval is still ahead when
      // someone opens the queue (and if it does pass, approving re-slots it).
      const slot = await nextFreeSlot(ctx, {
        brandId: brand.id,
        channelId: li.id,
        platform: 'linkedin',
        notBefore: new Date(now + DAY),
      });
      await proposePost(
        ctx,
        {
          draft_id: linkedin.id,
          reason: 'Ties into the strongest signal this week.',
          ...(slot ? { proposed_for: slot.at } : {}),
        },
        APP_CALLER,
      );
    }
  }
  await addCanvasNote(ctx, campaign.id, {
    text: 'Theme: one meeting you can drop this week',
    color: 'yellow',
  });
  await addCanvasNote(ctx, campaign.id, { text: 'Lead with the 23% meeting-load survey', color: 'blue' });
  await createAutomation(ctx, {
    brand_id: brand.id,
    name: 'Monday digest',
    agent_id: 'digest',
    inputs: { brandId: brand.id },
    trigger: { type: 'schedule', every: 'week', weekday: 1, hour: 8 },
    daily_cap: 1,
    enabled: true,
  });
  // A run records its failure instead of throwing; a demo without its digest is not complete.
  const run = await runAgent(ctx, 'digest', { brandId: brand.id }, APP_CALLER);
  if (run.status !== 'succeeded')
    throw new Error(`the demo digest run ${run.id} ${run.status}: ${run.error?.message ?? 'no digest'}`);
}
