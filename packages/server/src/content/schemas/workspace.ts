import { z } from 'zod';
import { named } from '../schemas.js';
import { DateTimeInput, ProposalStatus, Timestamp } from './common.js';

export const MemoryProposal = named(
  'MemoryProposal',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    run_id: z.string().nullable(),
    status: ProposalStatus,
    change: z.object({
      target: z.enum(['voice.do', 'voice.avoid', 'style_rules']),
      op: z.literal('add'),
      text: z.string(),
    }),
    why: z.string(),
    lift: z.number().describe('Median engagements of posts with the pattern ÷ those without.'),
    evidence: z.array(
      z.object({ post_id: z.string(), permalink: z.string().nullable(), excerpt: z.string() }),
    ),
    decided_at: Timestamp.nullable(),
    created_at: Timestamp,
  }),
);
export type MemoryProposalView = z.output<typeof MemoryProposal>;

export const McpCall = named(
  'McpCall',
  z.object({
    id: z.string(),
    source: z.literal('mcp'),
    key_id: z.string().nullable(),
    tool: z.string(),
    args: z.record(z.string(), z.unknown()),
    outcome: z.enum(['ok', 'error']),
    error_code: z.string().nullable(),
    error_message: z.string().nullable(),
    duration_ms: z.number().nullable(),
    created_at: Timestamp,
  }),
);
export type McpCallView = z.output<typeof McpCall>;

export const Mode = named(
  'Mode',
  z.object({
    mode: z.enum(['sandbox', 'live']),
    model: z.enum(['simulated', 'real']),
    label: z.string().describe('What every MCP tool result states, e.g. "(sandbox · simulated)".'),
    publishing: z
      .enum(['simulated', 'live', 'unavailable'])
      .describe(
        'simulated: sandbox, nothing leaves the machine. live: posts really go out on the platforms whose OAuth app is configured. unavailable: live mode with no platform configured; publishing fails with an error.',
      ),
    model_ready: z
      .boolean()
      .describe('false: SERVICE_MODEL=real with no model server configured; model calls fail.'),
    sandbox_clock: z.boolean().describe('Whether the sandbox clock can be advanced.'),
  }),
);

export const SandboxClockView = named(
  'SandboxClock',
  z.object({ now: Timestamp, offset_ms: z.number(), mode: z.enum(['sandbox', 'live']) }),
);
export const AdvanceBody = z
  .strictObject({
    minutes: z
      .number()
      .int()
      .min(0)
      .max(60 * 24 * 31)
      .optional(),
    hours: z
      .number()
      .int()
      .min(0)
      .max(24 * 31)
      .optional(),
    days: z.number().int().min(0).max(31).optional(),
    to: DateTimeInput.optional().describe('Move to this instant (must be in the future).'),
  })
  .describe('Give one or more of minutes/hours/days, or `to`. At most 31 days per call.');
export const AdvanceResult = named(
  'SandboxAdvanceResult',
  z.object({
    now: Timestamp,
    offset_ms: z.number(),
    published: z.array(z.string()),
    failed: z.array(z.string()),
    snapshots: z.number().int(),
    settled: z.array(z.string()),
    automations: z.array(
      z.object({ automation_id: z.string(), outcome: z.string(), run_id: z.string().nullable() }),
    ),
  }),
);
export type AdvanceResultView = z.output<typeof AdvanceResult>;

export const McpRelay = named(
  'McpRelay',
  z.object({
    relay: z
      .object({
        command: z.string().describe('The absolute path of the Node.js that runs this server.'),
        args: z
          .array(z.string())
          .describe('The absolute path of the built relay, `…/content-client/dist/bin/svc-mcp.js`.'),
      })
      .nullable()
      .describe(
        'The stdio command that starts the svc-mcp relay built in this checkout, for an MCP client on this machine; null when the server does not run from a checkout that has built it (then use `npx -y @svc/content-client`).',
      ),
  }),
);
