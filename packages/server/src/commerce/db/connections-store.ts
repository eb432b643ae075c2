import type { SqlExecutor } from '../../platform/db/sql.js';
import type { ConnectionStatus } from '../schemas/common.js';
import type { CommerceEnv } from './api-keys-store.js';

export interface ConnectionRecord {
  id: string;
  account_id: string;
  env: CommerceEnv;
  user_id: string;
  merchant_id: string;
  status: ConnectionStatus;
  created_at: string;
  updated_at: string;
}

export function connectionsStore(db: SqlExecutor) {
  return {
    find(userId: string, merchantId: string): Promise<ConnectionRecord | undefined> {
      return db.get<ConnectionRecord>('SELECT * FROM connections WHERE user_id = ? AND merchant_id = ?', [
        userId,
        merchantId,
      ]);
    },
    listForUser(userId: string): Promise<ConnectionRecord[]> {
      return db.all<ConnectionRecord>(
        'SELECT * FROM connections WHERE user_id = ? ORDER BY created_at DESC, seq DESC',
        [userId],
      );
    },
    async insert(c: ConnectionRecord): Promise<void> {
      await db.run(
        `INSERT INTO connections (id, account_id, env, user_id, merchant_id, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [c.id, c.account_id, c.env, c.user_id, c.merchant_id, c.status, c.created_at, c.updated_at],
      );
    },
    async setStatus(id: string, status: ConnectionStatus, at: string): Promise<void> {
      await db.run('UPDATE connections SET status = ?, updated_at = ? WHERE id = ?', [status, at, id]);
    },
  };
}
