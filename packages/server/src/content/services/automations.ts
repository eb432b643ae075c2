import { DAY } from '../../platform/clock.js';
import { AppError, notFound } from '../../platform/errors.js';
import { AGENTS } from '../agents/index.js';
import type { Caller, ContentContext } from '../context.js';
// Runs its own transaction (both caps or neither), so it is built on the database, not the bundle.
import { automationRunCountsStore } from '../db/stores/automation-run-counts-store.js';
import type { AutomationRow } from '../db/stores/automations-store.js';
import { type AgentId, AUTOMATION_CAPS } from '../domain.js';
import type { ContentEvent } from '../events.js';
import type { AgentRunView } from '../schemas/agents.js';
import type {
  AutomationView,
  CreateAutomationInput,
  PatchAutomationInput,
  TriggerInput,
} from '../schemas/automations.js';
import type { Page } from '../schemas/common.js';
import { sentence } from '../text.js';
import { nothingToDo, runAgent } from './agent-runs.js';
import { requireBrand } from './brands.js';

/** The server-local calendar day, which is what "daily" means for caps. */
export const localDay = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** Cap counters of the days before yesterday go (caps count today only); each background pass. */
export const purgeOldRunCounts = (ctx: ContentContext) =>
  automationRunCountsStore(ctx.db).purgeBefore(localDay(new Date(ctx.clock.now().getTime() - DAY)));

/** The next time a schedule trigger is due, strictly after `after`, in server local time. */
export function nextRunAt(trigger: TriggerInput, after: Date): string | null {
  if (trigger.type !== 'schedule') return null;
  const d = new Date(after.getTime());
  d.setMinutes(0, 0, 0);
  d.setHours(trigger.hour);
  while (
    d.getTime() <= after.getTime() ||
    (trigger.every === 'week' && d.getDay() !== (trigger.weekday ?? 1))
  ) {
    d.setDate(d.getDate() + 1);
    d.setHours(trigger.hour, 0, 0, 0);
  }
  return d.toISOString();
}

function checkTrigger(trigger: TriggerInput) {
  if (trigger.type === 'schedule' && trigger.every === 'week' && trigger.weekday === undefined)
    throw new AppError(
      400,
      'INVALID_REQUEST',
      "'trigger.weekday' is required when trigger.every is 'week'.",
      {
        param: 'trigger.weekday',
      },
    );
}

/** Inputs are checked against the agent when the automation is saved, not when it first fires. */
function checkInputs(
  agentId: AgentId,
  brandId: string,
  inputs: Record<string, unknown>,
  trigger: TriggerInput,
) {
  const withBrand = { ...inputs };
  const agent = AGENTS[agentId];
  const shape = agent.inputDocs.map((d) => d.name);
  if (shape.includes('brandId') && withBrand.brandId === undefined) withBrand.brandId = brandId;
  // Event automations get the post from the event; validate with a placeholder.
  const probe = { ...withBrand };
  if (shape.includes('postId') && probe.postId === undefined && trigger.type === 'event')
    probe.postId = 'post_event';
  if (shape.includes('draftId') && probe.draftId === undefined)
    throw new AppError(
      400,
      'INVALID_REQUEST',
      `Agent '${agentId}' needs a draft; it cannot run as an automation.`,
      {
        param: 'agent_id',
      },
    );
  const parsed = agent.inputs.safeParse(probe);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    throw new AppError(
      400,
      'INVALID_REQUEST',
      sentence(`'inputs.${field}' is invalid for agent '${agentId}': ${issue?.message}`),
      {
        param: `inputs.${field}`,
      },
    );
  }
  return withBrand;
}

async function view(ctx: ContentContext, rows: AutomationRow[]): Promise<AutomationView[]> {
  const store = ctx.stores.automations;
  const ids = rows.map((r) => r.id);
  const today = await store.firesOnFor(localDay(ctx.clock.now()), ids);
  const last = await store.lastFires(ids);
  return rows.map((r) => {
    const n = today.get(r.id) ?? {};
    const f = last.get(r.id);
    return {
      id: r.id,
      brand_id: r.brand_id,
      name: r.name,
      agent_id: r.agent_id,
      inputs: r.inputs,
      trigger: r.trigger,
      daily_cap: r.daily_cap,
      enabled: r.enabled,
      next_run_at: r.next_run_at,
      last_run_at: r.last_run_at,
      runs_today: (n.succeeded ?? 0) + (n.failed ?? 0),
      skipped_today: n.skipped ?? 0,
      last_fire: f
        ? {
            fired_at: f.fired_at,
            trigger: f.trigger,
            outcome: f.outcome,
            run_id: f.run_id,
            message: f.message,
          }
        : null,
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  });
}

async function requireAutomation(ctx: ContentContext, id: string) {
  const row = await ctx.stores.automations.get(id);
  if (!row) throw notFound('automation', id);
  return row;
}

export async function getAutomation(ctx: ContentContext, id: string): Promise<AutomationView> {
  return (await view(ctx, [await requireAutomation(ctx, id)]))[0] as AutomationView;
}

export async function listAutomations(
  ctx: ContentContext,
  filter: { brand_id?: string | undefined },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<AutomationView>> {
  const page = await ctx.stores.automations.list({ brandId: filter.brand_id }, opts.limit, opts.after);
  return { ...page, items: await view(ctx, page.items) };
}

export async function createAutomation(
  ctx: ContentContext,
  input: CreateAutomationInput,
): Promise<AutomationView> {
  await requireBrand(ctx, input.brand_id);
  checkTrigger(input.trigger);
  const inputs = checkInputs(input.agent_id, input.brand_id, input.inputs, input.trigger);
  const now = ctx.clock.now();
  const row: AutomationRow = {
    id: ctx.ids.make('auto'),
    brand_id: input.brand_id,
    name: input.name,
    agent_id: input.agent_id,
    inputs,
    trigger: input.trigger,
    trigger_type: input.trigger.type,
    event: input.trigger.type === 'event' ? input.trigger.event : null,
    daily_cap: input.daily_cap,
    enabled: input.enabled === true,
    next_run_at: nextRunAt(input.trigger, now),
    last_run_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await ctx.stores.automations.insert(row);
  return getAutomation(ctx, row.id);
}

export async function updateAutomation(
  ctx: ContentContext,
  id: string,
  input: PatchAutomationInput,
): Promise<AutomationView> {
  const row = await requireAutomation(ctx, id);
  const trigger = input.trigger ?? row.trigger;
  checkTrigger(trigger);
  const inputs = checkInputs(row.agent_id, row.brand_id, input.inputs ?? row.inputs, trigger);
  await ctx.stores.automations.update(
    id,
    {
      name: input.name ?? row.name,
      inputs,
      trigger,
      trigger_type: trigger.type,
      event: trigger.type === 'event' ? trigger.event : null,
      daily_cap: input.daily_cap ?? row.daily_cap,
      enabled: input.enabled ?? row.enabled,
      next_run_at: input.trigger ? nextRunAt(trigger, ctx.clock.now()) : row.next_run_at,
    },
    ctx.clock.now().toISOString(),
  );
  return getAutomation(ctx, id);
}

export async function deleteAutomation(ctx: ContentContext, id: string): Promise<void> {
  if (!(await ctx.stores.automations.remove(id))) throw notFound('automation', id);
}

/**
 * Every run, by schedule, event or by hand, counts toward two caps per server-local day: the
 * automation's own `daily_cap` and the workspace's (20). A capped attempt is recorded, not run.
 * First the agent's cheap precondition is asked: a fire with nothing to do (e.g. a
 * repurpose_winner on a post that is not a winner) is recorded as `skipped` and uses no cap.
 */
type FireResult =
  | { outcome: 'skipped' | 'capped'; run: null; message: string; code: string }
  | { outcome: 'succeeded' | 'failed'; run: AgentRunView | null; message: string | null; code: null };

async function fire(
  ctx: ContentContext,
  row: AutomationRow,
  trigger: string,
  extra: Record<string, unknown>,
): Promise<FireResult> {
  const store = ctx.stores.automations;
  const now = ctx.clock.now();
  const day = localDay(now);
  const base = { id: ctx.ids.make('fire'), automation_id: row.id, day, fired_at: now.toISOString(), trigger };
  const inputs = { ...row.inputs, ...extra };
  let idle: { code: string; message: string } | null = null;
  try {
    idle = await nothingToDo(ctx, row.agent_id, inputs);
  } catch {
    // Inputs the agent refuses are not "nothing to do": the run below records the failure.
  }
  if (idle) {
    const message = sentence(`Skipped, nothing to do (${idle.code}): ${idle.message}`);
    await store.addFire({ ...base, outcome: 'skipped', run_id: null, message });
    return { outcome: 'skipped', run: null, message, code: idle.code };
  }
  // Counted in the database before the run, so instances firing at once share the caps.
  const capped = await automationRunCountsStore(ctx.db).take(day, row.id, {
    automation: row.daily_cap,
    workspace: AUTOMATION_CAPS.perWorkspace,
  });
  if (capped) {
    const message =
      capped === 'automation'
        ? `Automation '${row.id}' has reached its daily cap of ${row.daily_cap} runs for ${day} (server local date).`
        : `The workspace has reached its daily cap of ${AUTOMATION_CAPS.perWorkspace} automation runs for ${day} (server local date).`;
    await store.addFire({ ...base, outcome: 'capped', run_id: null, message });
    return { outcome: 'capped', run: null, message, code: 'DAILY_CAP_REACHED' };
  }
  const caller: Caller = { source: 'automation', automationId: row.id };
  let run: AgentRunView | null = null;
  let message: string | null = null;
  try {
    run = await runAgent(ctx, row.agent_id, inputs, caller);
  } catch (err) {
    message = err instanceof Error ? err.message : String(err);
  }
  const outcome = run?.status === 'succeeded' ? 'succeeded' : 'failed';
  await store.addFire({
    ...base,
    outcome,
    run_id: run?.id ?? null,
    message: message ?? run?.error?.message ?? null,
  });
  await store.update(row.id, { last_run_at: now.toISOString() }, now.toISOString());
  return { outcome, run, message, code: null };
}

/**
 * POST /v1/automations/:id/run: runs now, within the caps (429 DAILY_CAP_REACHED beyond them).
 * Nothing to do is a 409 with the agent's reason (e.g. NOT_A_WINNER), recorded as a skipped fire.
 */
export async function runAutomationNow(ctx: ContentContext, id: string) {
  const row = await requireAutomation(ctx, id);
  const extra: Record<string, unknown> = {};
  if (
    row.trigger_type === 'event' &&
    AGENTS[row.agent_id].inputDocs.some((d) => d.name === 'postId') &&
    !row.inputs.postId
  )
    throw new AppError(
      409,
      'NEEDS_EVENT',
      `Automation '${id}' runs on a post event; it has no post to run on by hand.`,
    );
  const result = await fire(ctx, row, 'manual', extra);
  if (result.outcome === 'skipped') throw new AppError(409, result.code, result.message);
  if (result.outcome === 'capped') {
    // Caps reset at the server's local midnight; saying when lets clients stop retrying at once.
    const now = ctx.clock.now();
    const midnight = new Date(now);
    midnight.setHours(24, 0, 0, 0);
    const retryAfter = String(Math.max(1, Math.ceil((midnight.getTime() - now.getTime()) / 1000)));
    throw new AppError(429, 'DAILY_CAP_REACHED', result.message, {
      headers: { 'Retry-After': retryAfter },
    });
  }
  if (!result.run)
    throw new AppError(500, 'INTERNAL_ERROR', result.message ?? 'The automation could not start its agent.');
  return { automation_id: id, run: result.run };
}

/**
 * A claimed schedule stays with its instance this long (an agent may call a real model); if the
 * instance dies mid-fire, the automation is due again once it runs out.
 */
export const SCHEDULE_LEASE_MS = 10 * 60_000;

/**
 * Schedule triggers that have come due: each fires once, then moves to its next time after now.
 * Each is claimed first, so with several instances on one database only one of them fires it.
 */
export async function fireDueAutomations(ctx: ContentContext) {
  const now = ctx.clock.now();
  const store = ctx.stores.automations;
  const due = await store.due(now.toISOString());
  const out: { automation_id: string; outcome: string; run_id: string | null }[] = [];
  for (const row of due) {
    if (!row.next_run_at) continue;
    // Leases run on real time: advancing the sandbox clock must not expire another's claim.
    const real = ctx.clock.realNow();
    const leaseUntil = new Date(real.getTime() + SCHEDULE_LEASE_MS).toISOString();
    if (!(await store.claimDue(row.id, row.next_run_at, ctx.instanceId, real.toISOString(), leaseUntil)))
      continue; // fired (or being fired) by another instance or pass
    try {
      const r = await fire(ctx, row, 'schedule', {});
      out.push({ automation_id: row.id, outcome: r.outcome, run_id: r.run?.id ?? null });
    } finally {
      await store.finishDue(
        row.id,
        ctx.instanceId,
        nextRunAt(row.trigger, now),
        ctx.clock.now().toISOString(),
      );
    }
  }
  return out;
}

/** Post events start the automations listening for them, with the post as `postId` when the agent takes one. */
export function automationEventHandler(ctx: ContentContext) {
  return async (event: ContentEvent) => {
    const rows = await ctx.stores.automations.listening(event.name, event.brandId);
    for (const row of rows) {
      const takesPost = AGENTS[row.agent_id].inputDocs.some((d) => d.name === 'postId');
      await fire(ctx, row, event.name, takesPost ? { postId: event.postId } : {});
    }
  };
}
