import { z } from 'zod';
import { AUTOMATION_CAPS } from '../domain.js';
import { named } from '../schemas.js';
import { AgentRun } from './agents.js';
import { AgentId, EventName, Id, Text, Timestamp } from './common.js';

export const Trigger = named(
  'AutomationTrigger',
  z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('schedule'),
      every: z.enum(['day', 'week']),
      hour: z.number().int().min(0).max(23).describe('Server local time.'),
      weekday: z.number().int().min(0).max(6).optional().describe('0 = Sunday; required when every = week.'),
    }),
    z.strictObject({ type: z.literal('event'), event: EventName }),
  ]),
);
export type TriggerInput = z.output<typeof Trigger>;

export const FIRE_OUTCOMES = ['succeeded', 'failed', 'capped', 'skipped'] as const;
export type FireOutcome = (typeof FIRE_OUTCOMES)[number];

export const AutomationFire = named(
  'AutomationFire',
  z.object({
    fired_at: Timestamp,
    trigger: z.string().describe("'schedule', 'manual' or the event name."),
    outcome: z
      .enum(FIRE_OUTCOMES)
      .describe(
        'succeeded / failed: the agent ran (counts toward the caps); capped: a cap was reached, nothing ran; skipped: the agent had nothing to do (e.g. the post is not a winner), nothing ran and no cap was used.',
      ),
    run_id: z.string().nullable(),
    message: z.string().nullable().describe('Why it failed, was capped or was skipped.'),
  }),
);

export const Automation = named(
  'Automation',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    name: z.string(),
    agent_id: AgentId,
    inputs: z.record(z.string(), z.unknown()),
    trigger: Trigger,
    daily_cap: z.number().int(),
    enabled: z.boolean(),
    next_run_at: Timestamp.nullable(),
    last_run_at: Timestamp.nullable(),
    runs_today: z.number().int().describe('Runs today (server local date) that count toward the caps.'),
    skipped_today: z
      .number()
      .int()
      .describe('Fires today that were skipped with nothing to do; they use no cap.'),
    last_fire: AutomationFire.nullable().describe('The latest time it fired, whatever came of it.'),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export type AutomationView = z.output<typeof Automation>;

const cap = z
  .number()
  .int()
  .min(1)
  .max(AUTOMATION_CAPS.maxPerAutomation)
  .describe(`Runs per day (server local date); default ${AUTOMATION_CAPS.defaultPerAutomation}.`);

export const CreateAutomationBody = z.strictObject({
  brand_id: Id,
  name: Text(120),
  agent_id: AgentId,
  inputs: z.record(z.string(), z.unknown()).default({}),
  trigger: Trigger,
  daily_cap: cap.default(AUTOMATION_CAPS.defaultPerAutomation),
  enabled: z.boolean().default(true),
});
export type CreateAutomationInput = z.output<typeof CreateAutomationBody>;
export const PatchAutomationBody = z.strictObject({
  name: Text(120).optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  trigger: Trigger.optional(),
  daily_cap: cap.optional(),
  enabled: z.boolean().optional(),
});
export type PatchAutomationInput = z.output<typeof PatchAutomationBody>;

export const AutomationRunResult = named(
  'AutomationRunResult',
  z.object({ automation_id: z.string(), run: AgentRun }),
);
