import type { SqlExecutor } from '../../platform/db/sql.js';

export type Scope = 'read' | 'write';

export interface ContentApiKeyRow {
  id: string;
  name: string;
  scopes: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const COLUMNS = 'id, name, scopes, prefix, created_at, last_used_at, revoked_at';

export function contentApiKeysStore(db: SqlExecutor) {
  return {
    async insert(
      row: Omit<ContentApiKeyRow, 'last_used_at' | 'revoked_at'> & { key_hash: string },
    ): Promise<void> {
      await db.run(
        'INSERT INTO api_keys (id, name, scopes, prefix, key_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        [row.id, row.name, row.scopes, row.prefix, row.key_hash, row.created_at],
      );
    },
    listActive(): Promise<ContentApiKeyRow[]> {
      return db.all<ContentApiKeyRow>(
        `SELECT ${COLUMNS} FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
      );
    },
    find(id: string): Promise<ContentApiKeyRow | undefined> {
      return db.get<ContentApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`, [id]);
    },
    findActiveByHash(hash: string): Promise<ContentApiKeyRow | undefined> {
      return db.get<ContentApiKeyRow>(
        `SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL`,
        [hash],
      );
    },
    async revoke(id: string, at: string): Promise<boolean> {
      const { changes } = await db.run(
        'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
        [at, id],
      );
      return changes > 0;
    },
    async touch(id: string, at: string): Promise<void> {
      await db.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [at, id]);
    },
  };
}
