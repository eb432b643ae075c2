import { onUniqueViolation } from '../../../platform/db/constraints.js';
import type { Dialect, SqlExecutor, SqlValue } from '../../../platform/db/sql.js';
import {
  PLATFORMS,
  type Platform,
  POST_STATUSES,
  type PostStatus,
  REPLY_THEMES,
  type ReplyTheme,
} from '../../domain.js';
import { brandBaselinesStore, decodeStoredBaselines, type StoredBaselines } from './brand-baselines-store.js';
import { decodeJson, oneOf, toNumber } from './decode.js';
import { mediaReferencesStore } from './media-references-store.js';
import { afterClause, placeholders, toPage } from './paging.js';
import { partsOf, type StoredPart } from './parts.js';

export interface PostRow {
  id: string;
  brand_id: string;
  channel_id: string;
  platform: Platform;
  draft_id: string | null;
  draft_version: number | null;
  idea_id: string | null;
  status: PostStatus;
  parts: StoredPart[];
  scheduled_for: string | null;
  published_at: string | null;
  sort_at: string;
  permalink: string | null;
  external_id: string | null;
  failure: string | null;
  settled_at: string | null;
  created_at: string;
  updated_at: string;
  // Added by migration 006; always present on rows read back, optional for rows being written.
  /** A scheduled post waits until then (429 Retry-After, backoff after a 5xx). */
  retry_at?: string | null;
  /** Every part already on the platform, in order. */
  external_ids?: string[];
  /** What the person should know about publishing (unconfirmed, waiting to retry). */
  notice?: string | null;
  /**
   * The hour the post holds on its channel (migration 007; unique per channel among scheduled and
   * publishing posts). Left out on insert or with `scheduled_for` in an update, it follows
   * `scheduled_for`; null for a post published "now" or put back in the queue by a person.
   */
  slot_hour?: string | null;
}
export interface MetricsRow {
  post_id: string;
  age_h: number;
  taken_at: string;
  impressions: number;
  likes: number;
  comments: number;
  shares: number;
  clicks: number;
}
export interface ReplyRow {
  id: string;
  post_id: string;
  brand_id: string;
  author: string;
  text: string;
  theme: ReplyTheme;
  created_at: string;
}

/** Posts with what their verdicts need: each post's own snapshots and its brand's stored baselines. */
export interface PostsWithVerdictInputs {
  posts: PostRow[];
  /** The posts' snapshots, by post and age (oldest first within a post). */
  snapshots: MetricsRow[];
  /** The stored baselines of the posts' brands (no entry for a brand without snapshots yet). */
  baselines: Map<string, StoredBaselines>;
}

/** A snapshot's age and the counts that make its engagements: what a verdict leaves out of the median. */
export type AgeCounts = Pick<MetricsRow, 'age_h' | 'likes' | 'comments' | 'shares' | 'clicks'>;

/**
 * A page of posts with what their verdicts in a list need: each post's latest snapshot (all a
 * listed post shows) and the counts of every snapshot it has (to leave it out of its brand's
 * median), not every figure of every snapshot.
 */
export interface PostsWithLatestSnapshots {
  posts: PostRow[];
  /** Each post's latest snapshot (the oldest age); no entry for a post without snapshots. */
  latest: Map<string, MetricsRow>;
  /** Each post's snapshots as ages and counts, every age it has; no entry for a post without. */
  ages: Map<string, AgeCounts[]>;
  /** The stored baselines of the posts' brands (no entry for a brand without snapshots yet). */
  baselines: Map<string, StoredBaselines>;
}

const COLS =
  'id, brand_id, channel_id, platform, draft_id, draft_version, idea_id, status, parts, scheduled_for, published_at, sort_at, permalink, external_id, failure, settled_at, created_at, updated_at, retry_at, external_ids, notice, slot_hour';

type Row = Record<string, unknown>;

/**
 * A row as read: unions checked, parts and external ids decoded. The columns are named one by one
 * rather than spread, so a row that carries more (the list's latest snapshot) gives a post with
 * exactly the posts table's fields, and every post has one shape.
 */
const decode = (r: Row): PostRow =>
  ({
    id: r.id,
    brand_id: r.brand_id,
    channel_id: r.channel_id,
    platform: oneOf(PLATFORMS, 'posts', 'platform', r.platform),
    draft_id: r.draft_id,
    draft_version: r.draft_version,
    idea_id: r.idea_id,
    status: oneOf(POST_STATUSES, 'posts', 'status', r.status),
    parts: partsOf('posts', r.parts),
    scheduled_for: r.scheduled_for,
    published_at: r.published_at,
    sort_at: r.sort_at,
    permalink: r.permalink,
    external_id: r.external_id,
    failure: r.failure,
    settled_at: r.settled_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
    retry_at: r.retry_at,
    external_ids: decodeJson<string[]>('array', 'posts', 'external_ids', r.external_ids ?? '[]'),
    notice: r.notice,
    slot_hour: r.slot_hour,
  }) as PostRow;
const decodeAll = async (rows: Promise<Row[]>) => (await rows).map(decode);
const decodeReply = (r: ReplyRow): ReplyRow => ({
  ...r,
  theme: oneOf(REPLY_THEMES, 'replies', 'theme', r.theme),
});
const decodeSnapshot = <T extends MetricsRow>(r: T): T => ({
  ...r,
  age_h: toNumber(r.age_h),
  impressions: toNumber(r.impressions),
  likes: toNumber(r.likes),
  comments: toNumber(r.comments),
  shares: toNumber(r.shares),
  clicks: toNumber(r.clicks),
});

export interface PostFilter {
  brandId?: string | undefined;
  status?: string | undefined;
  channelId?: string | undefined;
  platform?: string | undefined;
}

/**
 * Newest first, one more than `limit` so the page knows whether there are more. `from` names the
 * posts table as `p`, with whatever it joins; `select` is what each row carries.
 */
function pageQuery(
  filter: PostFilter,
  limit: number,
  after: string | undefined,
  { select, from }: { select: string; from: string } = { select: 'p.*', from: 'posts p' },
) {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (filter.brandId) where.push('p.brand_id = ?') && params.push(filter.brandId);
  if (filter.status) where.push('p.status = ?') && params.push(filter.status);
  if (filter.channelId) where.push('p.channel_id = ?') && params.push(filter.channelId);
  if (filter.platform) where.push('p.platform = ?') && params.push(filter.platform);
  const a = afterClause(['p.sort_at', 'p.id'], after);
  return {
    sql: `SELECT ${select} FROM ${from} WHERE 1 = 1${where.map((w) => ` AND ${w}`).join('')}${a.sql}
         ORDER BY p.sort_at DESC, p.id DESC LIMIT ?`,
    params: [...params, ...a.params, limit + 1],
  };
}

/**
 * A page of posts, each with its latest snapshot's figures and, as one short text, the age and
 * counts of every snapshot it has (`age likes comments shares clicks`, comma between snapshots).
 * Both drivers spend their time making JavaScript values: better-sqlite3 one per column of every
 * row, where reading every snapshot of the page whole (~7 rows of 8 columns per post) cost twice
 * the page itself; pg parsing each post's snapshots as JSON objects (json_agg), which was most of
 * the list's garbage. This is one row per post and one short text to parse. The posts' primary
 * keys and post_metrics' (post_id, age_h) key serve both lookups. `string_agg` (SQLite 3.44+, bundled by better-sqlite3; the
 * standard name PostgreSQL uses too, where `group_concat` is SQLite's own) with an explicit order,
 * so the ages come oldest first as PostgreSQL's statement gives them. Every column is NOT NULL,
 * so no snapshot's five numbers can be skipped and shift the others.
 */
const LATEST_COLS = ['age_h', 'taken_at', 'impressions', 'likes', 'comments', 'shares', 'clicks'] as const;
const WITH_LATEST_SNAPSHOT = {
  select: `p.*, ${LATEST_COLS.map((c) => `m.${c} AS latest_${c}`).join(', ')},
    (SELECT string_agg(e.age_h || ',' || e.likes || ',' || e.comments || ',' || e.shares || ',' || e.clicks, ',' ORDER BY e.age_h)
       FROM post_metrics e WHERE e.post_id = p.id) AS own_ages`,
  from: `posts p LEFT JOIN post_metrics m
    ON m.post_id = p.id AND m.age_h = (SELECT max(x.age_h) FROM post_metrics x WHERE x.post_id = p.id)`,
};

type LatestRow = Row & { own_ages: string | null; own_brand_baselines?: string | null } & {
  [K in `latest_${(typeof LATEST_COLS)[number]}`]: unknown;
};

/**
 * PostgreSQL: a page of posts (WITH_LATEST_SNAPSHOT's, or a single post with `moreColumns`)
 * with, on the first row of each brand only, the brand's stored baselines (the same for every
 * post of the brand, so they cross the wire once). One statement, so one round trip, where
 * SQLite (in the process) reads the baselines apart.
 */
const withBrandBaselines = (page: { sql: string; params: SqlValue[] }, moreColumns = '') => ({
  sql: `SELECT p.*${moreColumns},
               CASE WHEN row_number() OVER (PARTITION BY p.brand_id) = 1 THEN b.baselines END AS own_brand_baselines
          FROM (${page.sql}) p LEFT JOIN brand_baselines b ON b.brand_id = p.brand_id
         ORDER BY p.sort_at DESC, p.id DESC`,
  params: page.params,
});

/**
 * Splits rows of WITH_LATEST_SNAPSHOT into the posts, their latest snapshots, their ages and the
 * baselines some rows carry (withBrandBaselines). Fields are read by name, not with
 * `{ a, ...rest }`: V8 copies a rest object through a slow runtime call, which was 13 % of a
 * list's CPU in the profile.
 */
function withLatestSnapshots(rows: LatestRow[]): PostsWithLatestSnapshots {
  const out: PostsWithLatestSnapshots = {
    posts: [],
    latest: new Map(),
    ages: new Map(),
    baselines: new Map(),
  };
  for (const r of rows) {
    const post = decode(r);
    out.posts.push(post);
    if (r.own_brand_baselines != null)
      out.baselines.set(post.brand_id, decodeStoredBaselines(r.own_brand_baselines));
    if (r.own_ages == null || r.latest_age_h == null) continue;
    out.latest.set(post.id, {
      post_id: post.id,
      age_h: toNumber(r.latest_age_h),
      taken_at: r.latest_taken_at as string,
      impressions: toNumber(r.latest_impressions),
      likes: toNumber(r.latest_likes),
      comments: toNumber(r.latest_comments),
      shares: toNumber(r.latest_shares),
      clicks: toNumber(r.latest_clicks),
    });
    // Five numbers per snapshot, comma-separated: a JSON array once bracketed.
    const n = JSON.parse(`[${r.own_ages}]`) as number[];
    const ages: AgeCounts[] = [];
    for (let i = 0; i + 4 < n.length; i += 5)
      ages.push({
        age_h: n[i],
        likes: n[i + 1],
        comments: n[i + 2],
        shares: n[i + 3],
        clicks: n[i + 4],
      } as AgeCounts);
    out.ages.set(post.id, ages);
  }
  return out;
}

/**
 * PostgreSQL: the posts `posts` selects, each with its snapshots (json_agg, oldest first) and, on
 * one row per brand, the brand's stored baselines, in the order `posts` gives. One round trip
 * instead of three statements; the figures are those the separate reads give.
 */
async function withVerdictInputsInOneStatement(
  db: SqlExecutor,
  posts: { sql: string; params: SqlValue[] },
): Promise<PostsWithVerdictInputs> {
  const { sql, params } = withBrandBaselines(
    posts,
    ', (SELECT json_agg(m ORDER BY m.age_h) FROM post_metrics m WHERE m.post_id = p.id) AS own_snapshots',
  );
  const rows = await db.all<Row & { own_snapshots: unknown; own_brand_baselines: string | null }>(
    sql,
    params,
  );
  const out: PostsWithVerdictInputs = { posts: [], snapshots: [], baselines: new Map() };
  // decode reads the post's columns by name, so the row goes in whole (no rest copy; see above).
  for (const r of rows) {
    const post = decode(r);
    out.posts.push(post);
    if (r.own_snapshots != null)
      for (const s of decodeJson<MetricsRow[]>('array', 'post_metrics', 'snapshots', r.own_snapshots))
        out.snapshots.push(decodeSnapshot(s));
    if (r.own_brand_baselines != null)
      out.baselines.set(post.brand_id, decodeStoredBaselines(r.own_brand_baselines));
  }
  return out;
}

/** SQLite: the posts' snapshots and their brands' baselines, read after them (see listWithVerdictInputs). */
async function withVerdictInputsApart(db: SqlExecutor, posts: PostRow[]): Promise<PostsWithVerdictInputs> {
  const [snapshots, baselines] = await Promise.all([
    snapshotsOfPosts(
      db,
      posts.map((p) => p.id),
    ),
    brandBaselinesStore(db).ofBrands([...new Set(posts.map((p) => p.brand_id))]),
  ]);
  return { posts, snapshots, baselines };
}

async function snapshotsOfPosts(db: SqlExecutor, postIds: string[]): Promise<MetricsRow[]> {
  if (postIds.length === 0) return [];
  const rows = await db.all<MetricsRow>(
    `SELECT * FROM post_metrics WHERE post_id IN (${placeholders(postIds.length)}) ORDER BY post_id, age_h`,
    postIds,
  );
  return rows.map(decodeSnapshot);
}

const HOUR = 3_600_000;
/** The hour a time falls in, as the ISO string `slot_hour` holds. */
export const slotHourOf = (iso: string) => new Date(Math.floor(Date.parse(iso) / HOUR) * HOUR).toISOString();

/** Statuses a post can be deleted or edited in; `publishing` and `published` are on the platform. */
const NOT_LIVE = "('scheduled', 'failed', 'unconfirmed')";

/** One post per channel per hour: the unique index of migration 007. */
const SLOT_INDEX = ['channel_id', 'slot_hour'] as const;

function withSlot(patch: Partial<PostRow>): Partial<PostRow> {
  if (patch.scheduled_for && patch.slot_hour === undefined)
    return { ...patch, slot_hour: slotHourOf(patch.scheduled_for) };
  return patch;
}

/** Rows per multi-row INSERT: 100 × 8 columns stays under SQLite's oldest limit of 999 parameters. */
const BULK_ROWS = 100;

export function postsStore(db: SqlExecutor) {
  return {
    /**
     * Throws `slotTaken()` when another post already holds the hour on the channel. Call inside a
     * transaction when the post has media: its media references are written with it.
     */
    async insert(
      r: PostRow,
      slotTaken: () => Error = () => new Error(`post ${r.id}: one post per channel per hour`),
    ) {
      const slot =
        r.slot_hour !== undefined ? r.slot_hour : r.scheduled_for ? slotHourOf(r.scheduled_for) : null;
      const write = db.run(`INSERT INTO posts (${COLS}) VALUES (${placeholders(22)})`, [
        r.id,
        r.brand_id,
        r.channel_id,
        r.platform,
        r.draft_id,
        r.draft_version,
        r.idea_id,
        r.status,
        JSON.stringify(r.parts),
        r.scheduled_for,
        r.published_at,
        r.sort_at,
        r.permalink,
        r.external_id,
        r.failure,
        r.settled_at,
        r.created_at,
        r.updated_at,
        r.retry_at ?? null,
        JSON.stringify(r.external_ids ?? []),
        r.notice ?? null,
        slot,
      ]);
      await onUniqueViolation(write, 'posts', SLOT_INDEX, slotTaken);
      await mediaReferencesStore(db).add({ post_id: r.id }, r.parts);
    },
    async get(id: string): Promise<PostRow | undefined> {
      const row = await db.get<Row>('SELECT * FROM posts WHERE id = ?', [id]);
      return row && decode(row);
    },
    /** Takes a scheduled post for publishing; false when someone else already did (or it changed). */
    async claim(id: string, at: string) {
      const r = await db.run(
        "UPDATE posts SET status = 'publishing', retry_at = NULL, updated_at = ? WHERE id = ? AND status = 'scheduled'",
        [at, id],
      );
      return r.changes > 0;
    },
    async list(filter: PostFilter, limit: number, after?: string) {
      const page = pageQuery(filter, limit, after);
      const rows = await decodeAll(db.all<Row>(page.sql, page.params));
      return toPage(rows, limit, (r) => [r.sort_at, r.id]);
    },
    /**
     * A page of posts (as `list`) with what their verdicts need: each post's latest snapshot, the
     * ages and counts of all its snapshots, its brand's stored baselines. Read when asked, never
     * kept, so a snapshot written on any instance is in the next page. On PostgreSQL that is ONE
     * statement, so one round trip: each post's latest snapshot and its ages beside it, its brand's
     * baselines on the brand's first row only (withBrandBaselines). On SQLite, in the process,
     * it is two: the same page, then the brands' baselines.
     */
    async listWithVerdictInputs(
      filter: PostFilter,
      limit: number,
      after: string | undefined,
      dialect: Dialect,
    ) {
      const query = pageQuery(filter, limit, after, WITH_LATEST_SNAPSHOT);
      let found: PostsWithLatestSnapshots;
      if (dialect === 'postgres') {
        const { sql, params } = withBrandBaselines(query);
        found = withLatestSnapshots(await db.all<LatestRow>(sql, params));
      } else {
        found = withLatestSnapshots(await db.all<LatestRow>(query.sql, query.params));
        found.baselines = await brandBaselinesStore(db).ofBrands([
          ...new Set(found.posts.map((p) => p.brand_id)),
        ]);
      }
      const page = toPage(found.posts, limit, (r) => [r.sort_at, r.id]);
      // The row past the page only told whether there are more.
      return { ...found, ...page, posts: page.items };
    },
    /** One post with what its verdict needs (see listWithVerdictInputs); undefined when there is none. */
    async getWithVerdictInputs(id: string, dialect: Dialect): Promise<PostsWithVerdictInputs | undefined> {
      const one = { sql: 'SELECT p.* FROM posts p WHERE p.id = ?', params: [id] };
      const found =
        dialect === 'postgres'
          ? await withVerdictInputsInOneStatement(db, one)
          : await withVerdictInputsApart(db, await decodeAll(db.all<Row>(one.sql, one.params)));
      return found.posts.length > 0 ? found : undefined;
    },
    publishedOf: (brandId: string, since = '') =>
      decodeAll(
        db.all<Row>(
          "SELECT * FROM posts WHERE brand_id = ? AND status = 'published' AND published_at >= ? ORDER BY published_at, id",
          [brandId, since],
        ),
      ),
    publishedBetween: (brandId: string | null, from: string, to: string) =>
      decodeAll(
        brandId
          ? db.all<Row>(
              "SELECT * FROM posts WHERE brand_id = ? AND status = 'published' AND published_at >= ? AND published_at < ? ORDER BY published_at, id",
              [brandId, from, to],
            )
          : db.all<Row>(
              "SELECT * FROM posts WHERE status = 'published' AND published_at >= ? AND published_at < ? ORDER BY published_at, id",
              [from, to],
            ),
      ),
    due: (now: string) =>
      decodeAll(
        db.all<Row>(
          "SELECT * FROM posts WHERE status = 'scheduled' AND scheduled_for <= ? AND (retry_at IS NULL OR retry_at <= ?) ORDER BY scheduled_for, id",
          [now, now],
        ),
      ),
    /** Published posts that still have snapshots to take. */
    growing: (settleBefore: string) =>
      decodeAll(
        db.all<Row>(
          "SELECT * FROM posts WHERE status = 'published' AND settled_at IS NULL AND published_at <= ? ORDER BY published_at, id",
          [settleBefore],
        ),
      ),
    /** Posts holding an hour on the channel (the rows the one-per-slot index covers). */
    scheduledOnChannel: (channelId: string, from: string, to: string) =>
      db.all<{ scheduled_for: string; id: string }>(
        `SELECT id, scheduled_for FROM posts WHERE channel_id = ? AND slot_hour IS NOT NULL
            AND status IN ('scheduled', 'publishing') AND scheduled_for >= ? AND scheduled_for < ?`,
        [channelId, from, to],
      ),
    countScheduled: async (brandId: string | null) =>
      (
        await db.get<{ n: number }>(
          `SELECT COUNT(*) AS n FROM posts WHERE status = 'scheduled'${brandId ? ' AND brand_id = ?' : ''}`,
          brandId ? [brandId] : [],
        )
      )?.n ?? 0,
    /**
     * Writes `patch` only while the post is still in `status`, so a write decided on a status
     * read earlier cannot land on a post that moved meanwhile (claimed for publishing, published,
     * deleted). False when it had moved: the caller re-reads and says why. Call inside a
     * transaction when the patch has parts: the post's media references follow them.
     */
    async updateIf(
      id: string,
      status: PostStatus,
      patch: Partial<PostRow>,
      at: string,
      slotTaken: () => Error = () => new Error(`post ${id}: one post per channel per hour`),
    ): Promise<boolean> {
      const entries = Object.entries(withSlot(patch))
        .filter(([k]) => k !== 'id')
        .map(([k, v]): [string, string | number | null] => [
          k,
          k === 'parts' || k === 'external_ids' ? JSON.stringify(v) : (v as string | number | null),
        ]);
      const write = db.run(
        `UPDATE posts SET ${entries.map(([k]) => `${k} = ?, `).join('')}updated_at = ? WHERE id = ? AND status = ?`,
        [...entries.map(([, v]) => v), at, id, status],
      );
      const moved = (await onUniqueViolation(write, 'posts', SLOT_INDEX, slotTaken)).changes > 0;
      if (moved && patch.parts !== undefined)
        await mediaReferencesStore(db).replace({ post_id: id }, patch.parts);
      return moved;
    },
    /** Settles the post once: false when it was settled already (or is not published). */
    async settleIf(id: string, settledAt: string, at: string): Promise<boolean> {
      const r = await db.run(
        "UPDATE posts SET settled_at = ?, updated_at = ? WHERE id = ? AND status = 'published' AND settled_at IS NULL",
        [settledAt, at, id],
      );
      return r.changes > 0;
    },
    /** Deletes the post unless it is on the platform (publishing or published) by now. */
    async removeUnlessLive(id: string) {
      return (await db.run(`DELETE FROM posts WHERE id = ? AND status IN ${NOT_LIVE}`, [id])).changes > 0;
    },

    async addSnapshot(m: MetricsRow) {
      await db.run(
        `INSERT INTO post_metrics (post_id, age_h, taken_at, impressions, likes, comments, shares, clicks)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (post_id, age_h) DO NOTHING`,
        [m.post_id, m.age_h, m.taken_at, m.impressions, m.likes, m.comments, m.shares, m.clicks],
      );
    },
    /**
     * Many snapshots in as few statements as the engines allow, for bulk writers (the demo seed):
     * on PostgreSQL each statement is a round trip, and the seed writes hundreds.
     */
    async addSnapshots(ms: readonly MetricsRow[]) {
      for (let i = 0; i < ms.length; i += BULK_ROWS) {
        const chunk = ms.slice(i, i + BULK_ROWS);
        await db.run(
          `INSERT INTO post_metrics (post_id, age_h, taken_at, impressions, likes, comments, shares, clicks)
           VALUES ${chunk.map(() => `(${placeholders(8)})`).join(', ')}
           ON CONFLICT (post_id, age_h) DO NOTHING`,
          chunk.flatMap((m) => [
            m.post_id,
            m.age_h,
            m.taken_at,
            m.impressions,
            m.likes,
            m.comments,
            m.shares,
            m.clicks,
          ]),
        );
      }
    },
    snapshots: async (postId: string) =>
      (await db.all<MetricsRow>('SELECT * FROM post_metrics WHERE post_id = ? ORDER BY age_h', [postId])).map(
        decodeSnapshot,
      ),
    snapshotsOf: (postIds: string[]) => snapshotsOfPosts(db, postIds),
    /** Every snapshot of the brand's published posts: the input for medians and best times. */
    brandSnapshots: async (brandId: string) =>
      (
        await db.all<MetricsRow & { platform: string; published_at: string }>(
          `SELECT m.*, p.platform, p.published_at FROM post_metrics m JOIN posts p ON p.id = m.post_id
         WHERE p.brand_id = ? AND p.status = 'published' ORDER BY m.post_id, m.age_h`,
          [brandId],
        )
      ).map((r) => ({ ...decodeSnapshot(r), platform: oneOf(PLATFORMS, 'posts', 'platform', r.platform) })),

    /**
     * Best times' input, one row per published post of the brand with a snapshot: its latest
     * snapshot's age and engagements, summed in SQL. Reading every snapshot instead held the event
     * loop for a brand with years of posts; this is one row a post, through the primary key.
     */
    latestEngagements: async (brandId: string) =>
      (
        await db.all<{
          post_id: string;
          platform: string;
          published_at: string;
          age_h: unknown;
          engagements: unknown;
        }>(
          `SELECT p.id AS post_id, p.platform, p.published_at, m.age_h,
                  m.likes + m.comments + m.shares + m.clicks AS engagements
             FROM posts p JOIN post_metrics m ON m.post_id = p.id
            WHERE p.brand_id = ? AND p.status = 'published'
              AND m.age_h = (SELECT MAX(x.age_h) FROM post_metrics x WHERE x.post_id = p.id)
            ORDER BY p.id`,
          [brandId],
        )
      ).map((r) => ({
        post_id: r.post_id,
        platform: oneOf(PLATFORMS, 'posts', 'platform', r.platform),
        published_at: r.published_at,
        age_h: toNumber(r.age_h),
        engagements: toNumber(r.engagements),
      })),
    /** Engagements of the brand's published posts on `platform` at snapshot age `ageH` (those that have one). */
    async engagementsAtAge(brandId: string, platform: Platform, ageH: number) {
      const rows = await db.all<{ post_id: string; engagements: unknown }>(
        `SELECT p.id AS post_id, m.likes + m.comments + m.shares + m.clicks AS engagements
           FROM posts p JOIN post_metrics m ON m.post_id = p.id AND m.age_h = ?
          WHERE p.brand_id = ? AND p.status = 'published' AND p.platform = ?`,
        [ageH, brandId, platform],
      );
      return new Map(rows.map((r) => [r.post_id, toNumber(r.engagements)]));
    },
    /**
     * When and where each published post of the brand went out, oldest first (the order of
     * publishedOf), without its text: what a digest needs to cite the posts of a best slot.
     */
    publishedTimesOf: async (brandId: string, platform: Platform) =>
      db.all<{ id: string; idea_id: string | null; published_at: string }>(
        `SELECT id, idea_id, published_at FROM posts
          WHERE brand_id = ? AND status = 'published' AND platform = ? AND published_at >= ''
          ORDER BY published_at, id`,
        [brandId, platform],
      ),

    async addReply(r: ReplyRow) {
      await db.run(
        'INSERT INTO replies (id, post_id, brand_id, author, text, theme, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [r.id, r.post_id, r.brand_id, r.author, r.text, r.theme, r.created_at],
      );
    },
    /** Many replies in as few statements as the engines allow (see addSnapshots). */
    async addReplies(rs: readonly ReplyRow[]) {
      for (let i = 0; i < rs.length; i += BULK_ROWS) {
        const chunk = rs.slice(i, i + BULK_ROWS);
        await db.run(
          `INSERT INTO replies (id, post_id, brand_id, author, text, theme, created_at) VALUES ${chunk.map(() => `(${placeholders(7)})`).join(', ')}`,
          chunk.flatMap((r) => [r.id, r.post_id, r.brand_id, r.author, r.text, r.theme, r.created_at]),
        );
      }
    },
    async getReply(id: string) {
      const row = await db.get<ReplyRow>('SELECT * FROM replies WHERE id = ?', [id]);
      return row && decodeReply(row);
    },
    async replies(postId: string, filter: { theme?: string }, limit: number, after?: string) {
      const a = afterClause(['created_at', 'id'], after);
      const rows = (
        await db.all<ReplyRow>(
          `SELECT * FROM replies WHERE post_id = ?${filter.theme ? ' AND theme = ?' : ''}${a.sql}
         ORDER BY created_at DESC, id DESC LIMIT ?`,
          [postId, ...(filter.theme ? [filter.theme] : []), ...a.params, limit + 1],
        )
      ).map(decodeReply);
      return toPage(rows, limit, (r) => [r.created_at, r.id]);
    },
    repliesSince: async (brandId: string, since: string) =>
      (
        await db.all<ReplyRow>(
          'SELECT * FROM replies WHERE brand_id = ? AND created_at >= ? ORDER BY created_at DESC, id',
          [brandId, since],
        )
      ).map(decodeReply),
    countReplies: async (brandId: string | null, from: string, to: string) =>
      (
        await db.get<{ n: number }>(
          `SELECT COUNT(*) AS n FROM replies WHERE created_at >= ? AND created_at < ?${brandId ? ' AND brand_id = ?' : ''}`,
          brandId ? [from, to, brandId] : [from, to],
        )
      )?.n ?? 0,
  };
}
