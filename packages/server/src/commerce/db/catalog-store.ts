import { fromFlag, toFlag } from '../../platform/db/flags.js';
import { fromJson, toJson } from '../../platform/db/json.js';
import { likeEscape } from '../../platform/db/like.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import type { Merchant } from '../schemas/resources.js';

type Row = {
  id: string;
  name: string;
  name_key: string;
  domain: string;
  tier: Merchant['tier'];
  route: Merchant['route'];
  category: string | null;
  requires_connection: number | boolean;
  capabilities: string;
  status: Merchant['status'];
  sandbox: number | boolean;
};

const toMerchant = (r: Row): Merchant & { name_key: string } => ({
  id: r.id,
  name: r.name,
  name_key: r.name_key,
  domain: r.domain,
  tier: r.tier,
  route: r.route,
  category: r.category,
  requires_connection: fromFlag(r.requires_connection),
  capabilities: fromJson(r.capabilities),
  status: r.status,
  ...(fromFlag(r.sandbox) ? { sandbox: true as const } : {}),
});

/** The discovered catalog: stores that joined on first use, paged by (name, id). */
export function catalogStore(db: SqlExecutor) {
  return {
    async page(opts: {
      includeSandbox: boolean;
      q: string | null;
      after: { name_key: string; id: string } | null;
      limit: number;
    }) {
      const where = opts.includeSandbox ? ['TRUE'] : ['sandbox = FALSE'];
      const params: (string | number)[] = [];
      if (opts.q) {
        where.push(
          // name_key is lower-cased when written; PostgreSQL's LIKE is case-sensitive, so the rest is
          // lower-cased here (SQLite's LIKE ignores ASCII case, which lower() makes moot).
          "(name_key LIKE ? ESCAPE '\\' OR lower(domain) LIKE ? ESCAPE '\\' OR lower(category) LIKE ? ESCAPE '\\')",
        );
        const like = `%${likeEscape(opts.q.toLowerCase())}%`;
        params.push(like, like, like);
      }
      if (opts.after) {
        where.push('(name_key > ? OR (name_key = ? AND id > ?))');
        params.push(opts.after.name_key, opts.after.name_key, opts.after.id);
      }
      const rows = await db.all<Row>(
        `SELECT * FROM catalog_merchants WHERE ${where.join(' AND ')} ORDER BY name_key, id LIMIT ?`,
        [...params, opts.limit + 1],
      );
      return { merchants: rows.slice(0, opts.limit).map(toMerchant), hasMore: rows.length > opts.limit };
    },
    async get(id: string) {
      const row = await db.get<Row>('SELECT * FROM catalog_merchants WHERE id = ?', [id]);
      return row && toMerchant(row);
    },
    async findByDomain(domain: string) {
      const row = await db.get<Row>('SELECT * FROM catalog_merchants WHERE domain = ?', [domain]);
      return row && toMerchant(row);
    },
    /** A catalog store's observed health (merchants/health.ts); registry stores have no row and keep theirs. */
    async setStatus(id: string, status: Merchant['status']): Promise<void> {
      await db.run('UPDATE catalog_merchants SET status = ? WHERE id = ?', [status, id]);
    },
    async insertIfNew(m: Merchant, at: string): Promise<void> {
      await db.run(
        // No conflict target: a row with the same id or the same domain (both unique) is kept.
        `INSERT INTO catalog_merchants (id, name, name_key, domain, tier, route, category,
           requires_connection, capabilities, status, sandbox, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
        [
          m.id,
          m.name,
          m.name.toLowerCase(),
          m.domain,
          m.tier,
          m.route,
          m.category,
          toFlag(m.requires_connection),
          toJson(m.capabilities),
          m.status,
          toFlag(m.sandbox === true),
          at,
        ],
      );
    },
  };
}
