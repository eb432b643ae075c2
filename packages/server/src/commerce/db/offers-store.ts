import { fromJson, toJson } from '../../platform/db/json.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import type { Offer } from '../schemas/resources.js';
import type { Scope } from './users-store.js';

export function offersStore(db: SqlExecutor) {
  return {
    async insert(scope: Scope, offer: Offer): Promise<void> {
      await db.run(
        'INSERT INTO offers (id, account_id, env, merchant_id, data, fetched_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [
          offer.id,
          scope.accountId,
          scope.env,
          offer.merchant_id,
          toJson(offer),
          offer.fetched_at,
          offer.expires_at,
        ],
      );
    },
    /** Another account's or environment's offer is indistinguishable from a missing one. */
    async get(scope: Scope, id: string): Promise<Offer | undefined> {
      const row = await db.get<{ data: string }>(
        'SELECT data FROM offers WHERE id = ? AND account_id = ? AND env = ?',
        [id, scope.accountId, scope.env],
      );
      return row && fromJson<Offer>(row.data);
    },
  };
}
