import type { CommerceContext } from '../context.js';
import type { CommerceEnv } from '../db/api-keys-store.js';
import type { ConnectionRecord } from '../db/connections-store.js';
import type { CommerceStores } from '../db/stores.js';
import { commerceStores } from '../db/stores.js';
import type { ConnectionStatus } from '../schemas/common.js';
import { writeEvents } from './events.js';
import { toConnection } from './serialize.js';

export interface Owner {
  accountId: string;
  env: CommerceEnv;
  userId: string;
}

/**
 * Moves the user's connection to a store into `status`, creating it if needed, and writes the
 * spec's connection events: `needs_user` and `revoked` each have their own.
 */
export async function setConnection(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock' | 'ids'>,
  owner: Owner,
  merchantId: string,
  status: ConnectionStatus,
): Promise<{ connection: ConnectionRecord; changed: boolean }> {
  const now = ctx.clock.now().toISOString();
  const existing = await s.connections.find(owner.userId, merchantId);
  if (existing?.status === status) return { connection: existing, changed: false };
  let connection: ConnectionRecord;
  if (existing) {
    await s.connections.setStatus(existing.id, status, now);
    connection = { ...existing, status, updated_at: now };
  } else {
    connection = {
      id: ctx.ids.make('con'),
      account_id: owner.accountId,
      env: owner.env,
      user_id: owner.userId,
      merchant_id: merchantId,
      status,
      created_at: now,
      updated_at: now,
    };
    await s.connections.insert(connection);
  }
  if (status === 'needs_user' || status === 'revoked') {
    await writeEvents(s, ctx, owner, [{ type: `connection.${status}`, data: toConnection(connection) }]);
  }
  return { connection, changed: true };
}

export async function listConnections(ctx: CommerceContext, owner: Owner) {
  const rows = await commerceStores(ctx.db).connections.listForUser(owner.userId);
  return rows.map(toConnection);
}
