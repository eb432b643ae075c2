import { onUniqueViolation } from '../../../platform/db/constraints.js';
import type { SqlExecutor } from '../../../platform/db/sql.js';
import { DRAFT_STATUSES, type DraftStatus, PLATFORMS, type Platform } from '../../domain.js';
import { oneOf } from './decode.js';
import { mediaReferencesStore } from './media-references-store.js';
import { afterClause, placeholders, toPage } from './paging.js';
import { partsOf, type StoredPart } from './parts.js';

export interface DraftRow {
  id: string;
  brand_id: string;
  idea_id: string | null;
  platform: Platform;
  status: DraftStatus;
  current_version: number;
  created_at: string;
  updated_at: string;
}
export interface DraftVersionRow {
  draft_id: string;
  version: number;
  parts: StoredPart[];
  action: string;
  note: string | null;
  source: string;
  key_id: string | null;
  created_at: string;
}
/** A draft joined with its current version's parts: what every read needs, in one query. */
export interface DraftWithParts extends DraftRow {
  parts: StoredPart[];
}

type Row = Record<string, unknown>;

const decode = (r: Row): DraftWithParts =>
  ({
    ...r,
    platform: oneOf(PLATFORMS, 'drafts', 'platform', r.platform),
    status: oneOf(DRAFT_STATUSES, 'drafts', 'status', r.status),
    current_version: Number(r.current_version),
    parts: partsOf('draft_versions', r.parts),
  }) as DraftWithParts;
const decodeVersion = (r: DraftVersionRow): DraftVersionRow => ({
  ...r,
  parts: partsOf('draft_versions', r.parts),
});

const SELECT = `SELECT d.*, v.parts FROM drafts d
  JOIN draft_versions v ON v.draft_id = d.id AND v.version = d.current_version`;

export function draftsStore(db: SqlExecutor) {
  return {
    /**
     * A new draft with no version yet (`current_version` 0); `addVersion` gives it version 1.
     * Throws `exists()` when the idea already has a draft for the platform (the unique index).
     */
    async insert(r: Omit<DraftRow, 'current_version'>, exists: () => Error) {
      const write = db.run(
        `INSERT INTO drafts (id, brand_id, idea_id, platform, status, current_version, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 0, ?, ?)`,
        [r.id, r.brand_id, r.idea_id, r.platform, r.status, r.created_at, r.updated_at],
      );
      await onUniqueViolation(write, 'drafts', ['idea_id', 'platform'], exists);
    },
    /**
     * Adds version `v.version` only if the draft is still at `v.version - 1` (compare and set on
     * `current_version`), so two edits that both read version n cannot both write n + 1: the
     * second gets false and nothing is written. Call inside a transaction: the version's media
     * references are written with it.
     */
    async addVersion(v: DraftVersionRow): Promise<boolean> {
      const moved = await db.run(
        'UPDATE drafts SET current_version = ?, updated_at = ? WHERE id = ? AND current_version = ?',
        [v.version, v.created_at, v.draft_id, v.version - 1],
      );
      if (moved.changes === 0) return false;
      await db.run(
        `INSERT INTO draft_versions (draft_id, version, parts, action, note, source, key_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [v.draft_id, v.version, JSON.stringify(v.parts), v.action, v.note, v.source, v.key_id, v.created_at],
      );
      await mediaReferencesStore(db).add({ draft_id: v.draft_id, draft_version: v.version }, v.parts);
      return true;
    },
    async get(id: string) {
      const row = await db.get<Row>(`${SELECT} WHERE d.id = ?`, [id]);
      return row && decode(row);
    },
    async forIdea(ideaId: string, platform: Platform) {
      const row = await db.get<Row>(`${SELECT} WHERE d.idea_id = ? AND d.platform = ?`, [ideaId, platform]);
      return row && decode(row);
    },
    async manyById(ids: string[]) {
      if (ids.length === 0) return [] as DraftWithParts[];
      return (await db.all<Row>(`${SELECT} WHERE d.id IN (${placeholders(ids.length)})`, ids)).map(decode);
    },
    versions: async (id: string) =>
      (
        await db.all<DraftVersionRow>('SELECT * FROM draft_versions WHERE draft_id = ? ORDER BY version', [
          id,
        ])
      ).map(decodeVersion),
    async version(id: string, version: number) {
      const row = await db.get<DraftVersionRow>(
        'SELECT * FROM draft_versions WHERE draft_id = ? AND version = ?',
        [id, version],
      );
      return row && decodeVersion(row);
    },
    async list(
      filter: { brandId?: string; ideaId?: string; platform?: string; status?: string },
      limit: number,
      after?: string,
    ) {
      const where: string[] = [];
      const params: string[] = [];
      if (filter.brandId) where.push('d.brand_id = ?') && params.push(filter.brandId);
      if (filter.ideaId) where.push('d.idea_id = ?') && params.push(filter.ideaId);
      if (filter.platform) where.push('d.platform = ?') && params.push(filter.platform);
      if (filter.status) where.push('d.status = ?') && params.push(filter.status);
      const a = afterClause(['d.updated_at', 'd.id'], after);
      const rows = (
        await db.all<Row>(
          `${SELECT} WHERE 1 = 1${where.map((w) => ` AND ${w}`).join('')}${a.sql}
         ORDER BY d.updated_at DESC, d.id DESC LIMIT ?`,
          [...params, ...a.params, limit + 1],
        )
      ).map(decode);
      return toPage(rows, limit, (r) => [r.updated_at, r.id]);
    },
    /** Moves the draft from `from` to `to`; false when it was not in `from` (any more). */
    async moveStatus(id: string, from: DraftStatus, to: DraftStatus, at: string): Promise<boolean> {
      const r = await db.run('UPDATE drafts SET status = ?, updated_at = ? WHERE id = ? AND status = ?', [
        to,
        at,
        id,
        from,
      ]);
      return r.changes > 0;
    },
    async setStatus(id: string, status: DraftStatus, at: string) {
      await db.run('UPDATE drafts SET status = ?, updated_at = ? WHERE id = ?', [status, at, id]);
    },
  };
}
