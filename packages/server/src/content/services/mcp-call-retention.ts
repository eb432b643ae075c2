import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ContentContext } from '../context.js';

/**
 * The MCP call log's retention (docs/content/mcp.md, "Retention"): entries older than
 * SERVICE_MCP_LOG_RETENTION_DAYS go, a bounded batch at a time, in the background pass.
 */
export interface CallLogSweepLimits {
  /** The most entries one DELETE takes: one short write, however long the backlog. */
  batch: number;
  /** The most batches one sweep runs; a longer backlog goes on in the next pass. */
  batchesPerSweep: number;
}

/**
 * 500 entries a statement keeps each write short on both engines (SQLite holds the event loop and
 * the write lock while it runs); 100 of them, 50,000 entries, keep a sweep to seconds, well inside
 * the pass's 5-minute lease, so a large first backlog (retention just turned on) cannot hold up
 * publishing. Passes come every 30 s, so such a backlog still drains at 6 million entries an hour.
 */
export const CALL_LOG_SWEEP_LIMITS: CallLogSweepLimits = { batch: 500, batchesPerSweep: 100 };

/**
 * One instance of a deployment sweeps an hour: it takes this lease for CALL_LOG_SWEEP_EVERY_MS
 * and keeps it once the log is swept (as the media sweep does its daily lease), so the next
 * sweep is due when it runs out. Retention is counted in days, so an hour late is nothing, and
 * no instance repeats the same index probes every 30 s. The sweep would be safe to overlap (each
 * DELETE only takes entries past a cut-off, and an entry deleted twice is deleted once).
 */
export const CALL_LOG_SWEEP_LEASE = 'content:mcp-call-log-sweep';
export const CALL_LOG_SWEEP_EVERY_MS = 60 * 60_000;

const DAY_MS = 24 * 60 * 60_000;

export interface CallLogSweep {
  /** The time before which entries were deleted (ISO). */
  before: string;
  deleted: number;
  /** DELETE statements run. */
  batches: number;
  /** False when the sweep stopped at its batch limit with entries maybe left: the next pass goes on. */
  finished: boolean;
}

type SweepContext = Pick<ContentContext, 'config' | 'clock' | 'stores' | 'db' | 'instanceId' | 'logger'>;

/**
 * Deletes the entries older than the retention, in batches; null when the log keeps every entry
 * (0 days). The cut-off is on the real clock, as `created_at` is (services/mcp-calls.ts): moving
 * the sandbox clock does not age the audit log. Between batches the event loop takes its turn, so
 * requests go on while a backlog drains.
 */
export async function sweepCallLog(
  ctx: SweepContext,
  limits: CallLogSweepLimits = CALL_LOG_SWEEP_LIMITS,
): Promise<CallLogSweep | null> {
  const days = ctx.config.mcpLogRetentionDays;
  if (days === 0) return null;
  const before = new Date(ctx.clock.realNow().getTime() - days * DAY_MS).toISOString();
  let deleted = 0;
  for (let batches = 1; ; batches++) {
    const n = await ctx.stores.mcpCalls.deleteBefore(before, limits.batch, ctx.db.dialect);
    deleted += n;
    if (n < limits.batch) return { before, deleted, batches, finished: true };
    if (batches >= limits.batchesPerSweep) return { before, deleted, batches, finished: false };
    await nextTurn();
  }
}

/**
 * The background pass's sweep: runs when this instance takes the sweep's lease (at most once an
 * hour in the deployment), and gives the lease back when it stopped at its batch limit, so the
 * next pass, on any instance, goes on with the backlog. A failure is logged and does not stop the
 * rest of the pass; the sweep is tried again once the lease runs out.
 */
export async function sweepCallLogIfDue(
  ctx: SweepContext,
  limits: CallLogSweepLimits = CALL_LOG_SWEEP_LIMITS,
): Promise<CallLogSweep | null> {
  if (ctx.config.mcpLogRetentionDays === 0) return null;
  const leases = ctx.stores.leases;
  if (!(await leases.take(CALL_LOG_SWEEP_LEASE, ctx.instanceId, CALL_LOG_SWEEP_EVERY_MS, ctx.db.dialect)))
    return null;
  try {
    const sweep = await sweepCallLog(ctx, limits);
    if (sweep && !sweep.finished) await leases.release(CALL_LOG_SWEEP_LEASE, ctx.instanceId);
    if (sweep?.deleted) ctx.logger.info(sweep, 'MCP call log entries past their retention deleted');
    return sweep;
  } catch (err) {
    ctx.logger.error({ err }, 'the MCP call log retention sweep failed');
    return null;
  }
}
