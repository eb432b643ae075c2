import { fromJson, toJson } from '../../platform/db/json.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import type { CommerceEnv } from './api-keys-store.js';

export type ApprovalStatus = 'pending' | 'approved' | 'declined';

export interface ApprovalRecord {
  id: string;
  account_id: string;
  env: CommerceEnv;
  key_id: string;
  app_name: string;
  client_user_id: string;
  rules: unknown;
  merchant_ids: string[];
  redirect_uri: string;
  status: ApprovalStatus;
  form_token_hash: string | null;
  user_id: string | null;
  expires_at: string;
  decided_at: string | null;
  created_at: string;
}

type Row = Omit<ApprovalRecord, 'rules' | 'merchant_ids'> & { rules: string; merchant_ids: string };

const fromRow = (row: Row | undefined): ApprovalRecord | undefined =>
  row && { ...row, rules: fromJson(row.rules), merchant_ids: fromJson(row.merchant_ids) };

export function approvalsStore(db: SqlExecutor) {
  return {
    async insert(a: ApprovalRecord & { token_hash: string }): Promise<void> {
      await db.run(
        `INSERT INTO approvals (id, token_hash, account_id, env, key_id, app_name, client_user_id, rules,
           merchant_ids, redirect_uri, status, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          a.id,
          a.token_hash,
          a.account_id,
          a.env,
          a.key_id,
          a.app_name,
          a.client_user_id,
          toJson(a.rules),
          toJson(a.merchant_ids),
          a.redirect_uri,
          a.status,
          a.expires_at,
          a.created_at,
        ],
      );
    },
    async findByTokenHash(tokenHash: string): Promise<ApprovalRecord | undefined> {
      return fromRow(await db.get<Row>('SELECT * FROM approvals WHERE token_hash = ?', [tokenHash]));
    },
    async setFormToken(id: string, formTokenHash: string): Promise<void> {
      await db.run('UPDATE approvals SET form_token_hash = ? WHERE id = ?', [formTokenHash, id]);
    },
    /** Decides a pending approval once; false when it was already decided (double submit). */
    async decide(
      id: string,
      formTokenHash: string,
      d: { status: 'approved' | 'declined'; user_id: string | null; at: string },
    ): Promise<boolean> {
      const { changes } = await db.run(
        `UPDATE approvals SET status = ?, user_id = ?, decided_at = ?, form_token_hash = NULL
          WHERE id = ? AND status = 'pending' AND form_token_hash = ?`,
        [d.status, d.user_id, d.at, id, formTokenHash],
      );
      return changes === 1;
    },
  };
}
