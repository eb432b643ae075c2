import { onUniqueViolation } from '../../../platform/db/constraints.js';
import type { SqlExecutor } from '../../../platform/db/sql.js';
import {
  APPROVAL_STATUSES,
  type ApprovalStatus,
  CALLER_SOURCES,
  type CallerSource,
  CHANNEL_STATUSES,
  type ChannelStatus,
  PLATFORMS,
  type Platform,
} from '../../domain.js';
import type { VoiceCheckView } from '../../schemas/approvals.js';
import { decodeJson, oneOf } from './decode.js';
import { afterClause, placeholders, toPage } from './paging.js';
import { partsOf, type StoredPart } from './parts.js';

export interface ApprovalRow {
  id: string;
  brand_id: string;
  draft_id: string;
  draft_version: number;
  channel_id: string;
  slot: string;
  reason: string | null;
  voice_check: VoiceCheckView;
  status: ApprovalStatus;
  pending_rank: number;
  decided_at: string | null;
  decided_by: string | null;
  decision_reason: string | null;
  post_id: string | null;
  run_id: string | null;
  source: CallerSource;
  key_id: string | null;
  person_id: string | null;
  created_at: string;
  updated_at: string;
}
/** An approval with its channel, joined so a page of approvals is one query. */
export interface ApprovalWithChannel extends ApprovalRow {
  channel_platform: Platform;
  channel_handle: string;
  channel_status: ChannelStatus;
  channel_status_reason: string | null;
  parts: StoredPart[];
  draft_platform: Platform;
}

type Row = Record<string, unknown>;

const decode = (r: Row): ApprovalRow =>
  ({
    ...r,
    voice_check: decodeJson<VoiceCheckView>('object', 'approvals', 'voice_check', r.voice_check),
    status: oneOf(APPROVAL_STATUSES, 'approvals', 'status', r.status),
    source: oneOf(CALLER_SOURCES, 'approvals', 'source', r.source),
    pending_rank: Number(r.pending_rank),
  }) as ApprovalRow;
const decodeWithChannel = (r: Row): ApprovalWithChannel => ({
  ...(r as unknown as ApprovalWithChannel),
  ...decode(r),
  channel_platform: oneOf(PLATFORMS, 'channels', 'platform', r.channel_platform),
  channel_status: oneOf(CHANNEL_STATUSES, 'channels', 'status', r.channel_status),
  parts: partsOf('draft_versions', r.parts),
  draft_platform: oneOf(PLATFORMS, 'drafts', 'platform', r.draft_platform),
});

const SELECT = `SELECT a.*, c.platform AS channel_platform, c.handle AS channel_handle,
    c.status AS channel_status, c.status_reason AS channel_status_reason,
    v.parts AS parts, d.platform AS draft_platform
  FROM approvals a
  JOIN channels c ON c.id = a.channel_id
  JOIN drafts d ON d.id = a.draft_id
  JOIN draft_versions v ON v.draft_id = a.draft_id AND v.version = a.draft_version`;

const COLS =
  'id, brand_id, draft_id, draft_version, channel_id, slot, reason, voice_check, status, pending_rank, decided_at, decided_by, decision_reason, post_id, run_id, source, key_id, person_id, created_at, updated_at';

export function approvalsStore(db: SqlExecutor) {
  return {
    /** Throws `alreadyPending()` when the draft has a pending approval (the unique index). */
    async insert(r: ApprovalRow, alreadyPending: () => Error) {
      const write = db.run(`INSERT INTO approvals (${COLS}) VALUES (${placeholders(20)})`, [
        r.id,
        r.brand_id,
        r.draft_id,
        r.draft_version,
        r.channel_id,
        r.slot,
        r.reason,
        JSON.stringify(r.voice_check),
        r.status,
        r.pending_rank,
        r.decided_at,
        r.decided_by,
        r.decision_reason,
        r.post_id,
        r.run_id,
        r.source,
        r.key_id,
        r.person_id,
        r.created_at,
        r.updated_at,
      ]);
      await onUniqueViolation(write, 'approvals', ['draft_id'], alreadyPending);
    },
    async get(id: string) {
      const row = await db.get<Row>(`${SELECT} WHERE a.id = ?`, [id]);
      return row && decodeWithChannel(row);
    },
    async pendingForDraft(draftId: string) {
      const row = await db.get<Row>("SELECT * FROM approvals WHERE draft_id = ? AND status = 'pending'", [
        draftId,
      ]);
      return row && decode(row);
    },
    async list(filter: { brandId?: string; status?: ApprovalStatus }, limit: number, after?: string) {
      const where: string[] = [];
      const params: string[] = [];
      if (filter.brandId) {
        where.push('a.brand_id = ?');
        params.push(filter.brandId);
      }
      if (filter.status) {
        where.push('a.status = ?');
        params.push(filter.status);
      }
      const a = afterClause([{ integer: 'a.pending_rank' }, 'a.created_at', 'a.id'], after);
      const rows = (
        await db.all<Row>(
          `${SELECT} WHERE 1 = 1${where.map((w) => ` AND ${w}`).join('')}${a.sql}
         ORDER BY a.pending_rank DESC, a.created_at DESC, a.id DESC LIMIT ?`,
          [...params, ...a.params, limit + 1],
        )
      ).map(decodeWithChannel);
      return toPage(rows, limit, (r) => [r.pending_rank, r.created_at, r.id]);
    },
    async counts(brandId?: string) {
      const rows = await db.all<{ status: string; n: number }>(
        `SELECT status, COUNT(*) AS n FROM approvals${brandId ? ' WHERE brand_id = ?' : ''} GROUP BY status`,
        brandId ? [brandId] : [],
      );
      const out = { pending: 0, approved: 0, rejected: 0 };
      for (const r of rows) if (r.status in out) out[r.status as keyof typeof out] = Number(r.n);
      return out;
    },
    pendingOnChannel: (channelId: string, from: string, to: string) =>
      db.all<{ id: string; slot: string }>(
        "SELECT id, slot FROM approvals WHERE channel_id = ? AND status = 'pending' AND slot >= ? AND slot < ?",
        [channelId, from, to],
      ),
    async byRun(runIds: string[]) {
      if (runIds.length === 0) return [] as ApprovalRow[];
      const rows = await db.all<Row>(
        `SELECT * FROM approvals WHERE run_id IN (${placeholders(runIds.length)}) ORDER BY created_at, id`,
        runIds,
      );
      return rows.map(decode);
    },
    /**
     * Writes `patch` only while the approval is pending, so a decision or edit made on an
     * earlier read cannot overwrite a decision taken meanwhile. False when it was decided.
     */
    async updateIfPending(id: string, patch: Partial<ApprovalRow>, at: string): Promise<boolean> {
      const entries = Object.entries(patch)
        .filter(([k]) => k !== 'id')
        .map(([k, v]): [string, string | number | null] => [
          k,
          k === 'voice_check' ? JSON.stringify(v) : (v as string | number | null),
        ]);
      const r = await db.run(
        `UPDATE approvals SET ${entries.map(([k]) => `${k} = ?, `).join('')}updated_at = ? WHERE id = ? AND status = 'pending'`,
        [...entries.map(([, v]) => v), at, id],
      );
      return r.changes > 0;
    },
  };
}
