import { toJson } from '../../platform/db/json.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import { readKeptJson } from '../../platform/sliced/kept-json.js';
import type { Offer } from '../schemas/resources.js';
import type { Scope } from './users-store.js';

export function offersStore(db: SqlExecutor) {
  return {
    /** `offer`'s JSON is the text the service made in slices (`withSlicedJson`), when it did. */
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
    /**
     * Another account's or environment's offer is indistinguishable from a missing one. A large
     * offer (every variant of a 3 MiB page) is decoded in slices, and its stored text is the answer.
     */
    async get(scope: Scope, id: string): Promise<Offer | undefined> {
      const row = await db.get<{ data: string }>(
        'SELECT data FROM offers WHERE id = ? AND account_id = ? AND env = ?',
        [id, scope.accountId, scope.env],
      );
      return row && readKeptJson<Offer>(row.data);
    },
  };
}
