import type { SqlExecutor } from '../../../platform/db/sql.js';
import {
  CHANNEL_KINDS,
  CHANNEL_STATUSES,
  type ChannelKind,
  type ChannelStatus,
  PLATFORMS,
  type Platform,
} from '../../domain.js';
import { oneOf } from './decode.js';
import { afterClause, placeholders, toPage } from './paging.js';

export interface ChannelRow {
  id: string;
  brand_id: string;
  platform: Platform;
  handle: string;
  display_name: string;
  kind: ChannelKind;
  status: ChannelStatus;
  /** Why the channel needs the person (needs_reconnect); null otherwise. */
  status_reason?: string | null;
  /** Live channels: the platform's id of the account. */
  platform_user_id?: string | null;
  connected_at: string | null;
  created_at: string;
}

/**
 * The brand's channel for a platform: connected, or waiting for the person to reconnect it after a
 * token refresh failed. Both keep their drafts, approvals and schedule; only `disconnected` lets go.
 */
const ACTIVE = "status IN ('connected', 'needs_reconnect')";

const decode = (r: ChannelRow): ChannelRow => ({
  ...r,
  platform: oneOf(PLATFORMS, 'channels', 'platform', r.platform),
  kind: oneOf(CHANNEL_KINDS, 'channels', 'kind', r.kind),
  status: oneOf(CHANNEL_STATUSES, 'channels', 'status', r.status),
});
/** What `connected*` reads: the statuses `ACTIVE` selects. */
export type ActiveChannelRow = ChannelRow & { status: 'connected' | 'needs_reconnect' };
const ACTIVE_STATUSES = ['connected', 'needs_reconnect'] as const;
const decodeActive = (r: ChannelRow): ActiveChannelRow => ({
  ...decode(r),
  status: oneOf(ACTIVE_STATUSES, 'channels', 'status', r.status),
});
const oneActive = async (row: Promise<ChannelRow | undefined>) => {
  const r = await row;
  return r && decodeActive(r);
};
const allActive = async (rows: Promise<ChannelRow[]>) => (await rows).map(decodeActive);
const one = async (row: Promise<ChannelRow | undefined>) => {
  const r = await row;
  return r && decode(r);
};
const all = async (rows: Promise<ChannelRow[]>) => (await rows).map(decode);

export function channelsStore(db: SqlExecutor) {
  return {
    async insert(r: ChannelRow) {
      await db.run(
        `INSERT INTO channels (id, brand_id, platform, handle, display_name, kind, status, connected_at, created_at, platform_user_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          r.id,
          r.brand_id,
          r.platform,
          r.handle,
          r.display_name,
          r.kind,
          r.status,
          r.connected_at,
          r.created_at,
          r.platform_user_id ?? null,
        ],
      );
    },
    get: (id: string) => one(db.get<ChannelRow>('SELECT * FROM channels WHERE id = ?', [id])),
    connectedFor: (brandId: string, platform: Platform) =>
      oneActive(
        db.get<ChannelRow>(`SELECT * FROM channels WHERE brand_id = ? AND platform = ? AND ${ACTIVE}`, [
          brandId,
          platform,
        ]),
      ),
    connectedOf: (brandId: string) =>
      allActive(
        db.all<ChannelRow>(
          `SELECT * FROM channels WHERE brand_id = ? AND ${ACTIVE} ORDER BY created_at, id`,
          [brandId],
        ),
      ),
    connectedOfMany(brandIds: string[]) {
      if (brandIds.length === 0) return Promise.resolve([] as ActiveChannelRow[]);
      return allActive(
        db.all<ChannelRow>(
          `SELECT * FROM channels WHERE ${ACTIVE} AND brand_id IN (${placeholders(brandIds.length)}) ORDER BY created_at, id`,
          brandIds,
        ),
      );
    },
    /** The brand's latest channel on this platform for this platform account, any status. */
    forAccount: (brandId: string, platform: Platform, platformUserId: string) =>
      one(
        db.get<ChannelRow>(
          `SELECT * FROM channels WHERE brand_id = ? AND platform = ? AND platform_user_id = ?
         ORDER BY created_at DESC, id DESC LIMIT 1`,
          [brandId, platform, platformUserId],
        ),
      ),
    async list(filter: { brandId?: string }, limit: number, after?: string) {
      const a = afterClause(['created_at', 'id'], after);
      const where = filter.brandId ? ' AND brand_id = ?' : '';
      const rows = await all(
        db.all<ChannelRow>(
          `SELECT * FROM channels WHERE 1 = 1${where}${a.sql} ORDER BY created_at DESC, id DESC LIMIT ?`,
          [...(filter.brandId ? [filter.brandId] : []), ...a.params, limit + 1],
        ),
      );
      return toPage(rows, limit, (r) => [r.created_at, r.id]);
    },
    /** Disconnected, and its platform tokens forgotten (run it in a transaction: two tables). */
    async disconnect(id: string) {
      await db.run("UPDATE channels SET status = 'disconnected', status_reason = NULL WHERE id = ?", [id]);
      await db.run('DELETE FROM channel_credentials WHERE channel_id = ?', [id]);
    },
    /** Only a connected channel moves to needs_reconnect; true when this call moved it. */
    async markNeedsReconnect(id: string, reason: string) {
      const r = await db.run(
        "UPDATE channels SET status = 'needs_reconnect', status_reason = ? WHERE id = ? AND status = 'connected'",
        [reason, id],
      );
      return r.changes > 0;
    },
    /** A finished OAuth connect on an existing row: connected again, with the account's current names. */
    async reconnect(id: string, r: { handle: string; display_name: string; connected_at: string }) {
      await db.run(
        "UPDATE channels SET status = 'connected', status_reason = NULL, handle = ?, display_name = ?, connected_at = ? WHERE id = ?",
        [r.handle, r.display_name, r.connected_at, id],
      );
    },
  };
}
