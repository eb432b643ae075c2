import { fromFlag, toFlag } from '../../../platform/db/flags.js';
import type { SqlExecutor } from '../../../platform/db/sql.js';
import { AGENT_IDS, type AgentId } from '../../domain.js';
import { FIRE_OUTCOMES, type FireOutcome, type TriggerInput } from '../../schemas/automations.js';
import { decodeJson, oneOf } from './decode.js';
import { afterClause, placeholders, toPage } from './paging.js';

export interface AutomationRow {
  id: string;
  brand_id: string;
  name: string;
  agent_id: AgentId;
  inputs: Record<string, unknown>;
  trigger: TriggerInput;
  trigger_type: string;
  event: string | null;
  daily_cap: number;
  enabled: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
  created_at: string;
  updated_at: string;
}
export interface FireRow {
  id: string;
  automation_id: string;
  day: string;
  fired_at: string;
  trigger: string;
  outcome: FireOutcome;
  run_id: string | null;
  message: string | null;
}

const COLS =
  'id, brand_id, name, agent_id, inputs, trigger, trigger_type, event, daily_cap, enabled, next_run_at, last_run_at, created_at, updated_at';

/** `enabled` is a flag column: 0/1 on SQLite, a boolean on PostgreSQL. */
const decode = (r: AutomationRow): AutomationRow => ({
  ...r,
  agent_id: oneOf(AGENT_IDS, 'automations', 'agent_id', r.agent_id),
  inputs: decodeJson('object', 'automations', 'inputs', r.inputs),
  trigger: decodeJson('object', 'automations', 'trigger', r.trigger),
  enabled: fromFlag(r.enabled),
});
const decodeFire = (f: FireRow): FireRow => ({
  ...f,
  outcome: oneOf(FIRE_OUTCOMES, 'automation_fires', 'outcome', f.outcome),
});
const JSON_COLUMNS: readonly string[] = ['inputs', 'trigger'];

export function automationsStore(db: SqlExecutor) {
  return {
    async insert(r: AutomationRow) {
      await db.run(`INSERT INTO automations (${COLS}) VALUES (${placeholders(14)})`, [
        r.id,
        r.brand_id,
        r.name,
        r.agent_id,
        JSON.stringify(r.inputs),
        JSON.stringify(r.trigger),
        r.trigger_type,
        r.event,
        r.daily_cap,
        toFlag(r.enabled),
        r.next_run_at,
        r.last_run_at,
        r.created_at,
        r.updated_at,
      ]);
    },
    async get(id: string) {
      const row = await db.get<AutomationRow>('SELECT * FROM automations WHERE id = ?', [id]);
      return row && decode(row);
    },
    async list(filter: { brandId?: string }, limit: number, after?: string) {
      const a = afterClause(['created_at', 'id'], after);
      const rows = await db.all<AutomationRow>(
        `SELECT * FROM automations WHERE 1 = 1${filter.brandId ? ' AND brand_id = ?' : ''}${a.sql}
         ORDER BY created_at DESC, id DESC LIMIT ?`,
        [...(filter.brandId ? [filter.brandId] : []), ...a.params, limit + 1],
      );
      return toPage(rows.map(decode), limit, (r) => [r.created_at, r.id]);
    },
    due: async (now: string) =>
      (
        await db.all<AutomationRow>(
          "SELECT * FROM automations WHERE trigger_type = 'schedule' AND enabled = TRUE AND next_run_at <= ? ORDER BY next_run_at, id",
          [now],
        )
      ).map(decode),
    /**
     * Claims a due scheduled automation in one statement: only while it is still due at the time
     * the caller read (`dueAt`) and nobody holds it, so two instances never both fire it. A claim
     * whose instance died runs out at `leaseUntil` and the automation is due again.
     */
    async claimDue(id: string, dueAt: string, owner: string, now: string, leaseUntil: string) {
      const r = await db.run(
        `UPDATE automations SET lease_owner = ?, lease_until = ?
          WHERE id = ? AND next_run_at = ? AND enabled = TRUE AND (lease_until IS NULL OR lease_until <= ?)`,
        [owner, leaseUntil, id, dueAt, now],
      );
      return r.changes > 0;
    },
    /** Moves a fired automation to its next time and lets go of the claim; only its holder can. */
    async finishDue(id: string, owner: string, nextRunAt: string | null, at: string) {
      await db.run(
        `UPDATE automations SET next_run_at = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?
          WHERE id = ? AND lease_owner = ?`,
        [nextRunAt, at, id, owner],
      );
    },
    listening: async (event: string, brandId: string) =>
      (
        await db.all<AutomationRow>(
          'SELECT * FROM automations WHERE event = ? AND enabled = TRUE AND brand_id = ? ORDER BY created_at, id',
          [event, brandId],
        )
      ).map(decode),
    async update(id: string, patch: Partial<AutomationRow>, at: string) {
      const entries = Object.entries(patch).filter(([k]) => k !== 'id');
      await db.run(
        `UPDATE automations SET ${entries.map(([k]) => `${k} = ?`).join(', ')}, updated_at = ? WHERE id = ?`,
        [
          ...entries.map(([k, v]) =>
            typeof v === 'boolean'
              ? toFlag(v)
              : JSON_COLUMNS.includes(k)
                ? JSON.stringify(v)
                : (v as string | number | null),
          ),
          at,
          id,
        ],
      );
    },
    async remove(id: string) {
      return (await db.run('DELETE FROM automations WHERE id = ?', [id])).changes > 0;
    },
    async addFire(f: FireRow) {
      await db.run(
        'INSERT INTO automation_fires (id, automation_id, day, fired_at, trigger, outcome, run_id, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [f.id, f.automation_id, f.day, f.fired_at, f.trigger, f.outcome, f.run_id, f.message],
      );
    },
    /** Per automation: fires of the day by outcome (`succeeded` + `failed` are the runs that count). */
    async firesOnFor(day: string, ids: string[]) {
      const out = new Map<string, Record<string, number>>();
      if (ids.length === 0) return out;
      const rows = await db.all<{ automation_id: string; outcome: string; n: number }>(
        `SELECT automation_id, outcome, COUNT(*) AS n FROM automation_fires WHERE day = ?
         AND automation_id IN (${placeholders(ids.length)}) GROUP BY automation_id, outcome`,
        [day, ...ids],
      );
      for (const r of rows) out.set(r.automation_id, { ...out.get(r.automation_id), [r.outcome]: r.n });
      return out;
    },
    /** The latest fire of each automation, whatever its outcome. */
    async lastFires(ids: string[]) {
      if (ids.length === 0) return new Map<string, FireRow>();
      const rows = await db.all<FireRow>(
        `SELECT f.* FROM automation_fires f WHERE f.automation_id IN (${placeholders(ids.length)})
         AND f.seq = (SELECT g.seq FROM automation_fires g WHERE g.automation_id = f.automation_id
                      ORDER BY g.fired_at DESC, g.seq DESC LIMIT 1)`,
        ids,
      );
      return new Map(rows.map((r) => [r.automation_id, decodeFire(r)]));
    },
  };
}
