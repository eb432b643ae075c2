import { timeOrderedId } from '../../platform/ids.js';
import type { ContentContext } from '../context.js';
import type { McpCallRow, NewMcpCall } from '../db/stores/misc-stores.js';
import type { Page } from '../schemas/common.js';
import type { McpCallView } from '../schemas/workspace.js';
import { flushToolCalls, queueToolCall } from './mcp-call-log.js';
import { redactSecretsUpTo } from './redact.js';

/**
 * What one entry of the log keeps at most. Every authenticated call is logged, refused ones
 * included (a RATE_LIMITED refusal costs the caller nothing), so without a bound one key could
 * have its whole request body (up to SERVICE_MAX_BODY_BYTES, 1 MiB by default) written to the
 * database on every call, past its rate limit, and MAX_PENDING entries that size would wait in
 * memory (services/mcp-call-log.ts). Larger arguments are kept as `{ truncated, chars, preview }`:
 * their size and the start of their JSON, secrets already redacted.
 */
export const MAX_LOGGED_ARGS_CHARS = 8_192;
export const MAX_LOGGED_MESSAGE_CHARS = 2_000;
const PREVIEW_CHARS = 1_000;

/**
 * More values than the largest arguments kept whole can hold (8,192 characters), so a walk this
 * long always sees enough for the preview. Past it the redaction stops: its cost then depends on
 * this bound, not on what the caller sent.
 */
const MAX_REDACTED_VALUES = 5_000;

/** Whether `args` holds nothing (a tool without arguments, the common small call). */
export function isEmpty(args: Record<string, unknown>): boolean {
  for (const _ in args) return false;
  return true;
}

/**
 * The arguments as the log stores them: JSON text, secrets redacted, bounded. Made once here
 * (the length check needs the text anyway) and written as it is by the batch.
 */
function loggedArgs(args: Record<string, unknown>): string {
  // Nothing to redact or bound: skips a walk and a serialisation on every call of such a tool.
  if (isEmpty(args)) return '{}';
  const { value: redacted, complete } = redactSecretsUpTo(args, MAX_REDACTED_VALUES);
  const json = JSON.stringify(redacted);
  if (complete && json.length <= MAX_LOGGED_ARGS_CHARS) return json;
  // Stopped short: the length of all of it, as sent (secrets are not in the preview either way).
  const chars = complete ? json.length : JSON.stringify(args).length;
  return JSON.stringify({ truncated: true, chars, preview: json.slice(0, PREVIEW_CHARS) });
}

/**
 * Text the caller chose (an unknown tool's name, a message quoting an argument's name) with U+0000
 * replaced: PostgreSQL refuses it in text, and the failed INSERT took every entry of its batch,
 * other keys' among them, out of the log. (`args` is stored as JSON, which escapes it.)
 */
const storable = (text: string) => (text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text);

const loggedMessage = (message: string | null | undefined): string | null =>
  message == null
    ? null
    : storable(
        message.length <= MAX_LOGGED_MESSAGE_CHARS
          ? message
          : `${message.slice(0, MAX_LOGGED_MESSAGE_CHARS - 1)}…`,
      );

/**
 * `at.toISOString()`, kept for the last millisecond: under load most calls share theirs with the
 * call before, and the formatting was the largest item of an entry's own cost (about 1 % of a
 * `list_agents` call's samples). A pure function of the time, so it cannot answer wrong.
 */
let lastIso = { ms: Number.NaN, text: '' };
function isoOf(at: Date): string {
  const ms = at.getTime();
  if (ms !== lastIso.ms) lastIso = { ms, text: at.toISOString() };
  return lastIso.text;
}

/**
 * The MCP server calls this once per tool call, success or failure, so a person can see what
 * agents did with which key (GET /v1/mcp-calls). The entry is written with the next batch
 * (services/mcp-call-log.ts), not before the answer: nothing here waits, so a call does not pay
 * for a promise and a turn of the microtask queue to queue its entry.
 */
export function recordToolCall(
  ctx: ContentContext,
  call: {
    keyId: string | null;
    tool: string;
    args: Record<string, unknown>;
    outcome: 'ok' | 'error';
    errorCode?: string | null;
    errorMessage?: string | null;
    durationMs?: number | null;
  },
): void {
  const at = ctx.clock.realNow();
  const row: NewMcpCall = {
    // In time order: the log is an append-mostly table written in batches (see timeOrderedId).
    id: timeOrderedId(ctx.ids, 'mcpc', at),
    key_id: call.keyId,
    tool: storable(call.tool),
    args: loggedArgs(call.args),
    outcome: call.outcome,
    error_code: call.errorCode ?? null,
    error_message: loggedMessage(call.errorMessage),
    duration_ms: call.durationMs ?? null,
    // Real time: an audit log says when the call happened, whatever the sandbox clock says.
    created_at: isoOf(at),
  };
  queueToolCall(ctx.db, ctx.logger, row);
}

const view = (r: McpCallRow): McpCallView => ({
  id: r.id,
  source: 'mcp',
  key_id: r.key_id,
  tool: r.tool,
  args: r.args,
  outcome: r.outcome,
  error_code: r.error_code,
  error_message: r.error_message,
  duration_ms: r.duration_ms,
  created_at: r.created_at,
});

export async function listToolCalls(
  ctx: ContentContext,
  filter: { key_id?: string | undefined; tool?: string | undefined },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<McpCallView>> {
  await flushToolCalls(ctx.db);
  const page = await ctx.stores.mcpCalls.list(
    { keyId: filter.key_id, tool: filter.tool },
    opts.limit,
    opts.after,
  );
  return { ...page, items: page.items.map(view) };
}
