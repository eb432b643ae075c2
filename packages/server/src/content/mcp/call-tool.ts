import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { keptJsonOf } from '../../platform/deep-frozen.js';
import { AppError } from '../../platform/errors.js';
import { getOrBuild } from '../../platform/get-or-build.js';
import { refuseNul } from '../../platform/http/nul-text.js';
import { inTheApp } from '../app-pages.js';
import type { ContentContext } from '../context.js';
import type { ApiKeyView } from '../services/api-keys.js';
import { recordToolCall } from '../services/mcp-calls.js';
import { rateLimitMessage, takeKeyCall, takeLeasedCall } from '../services/rate-limits.js';
import type { CompiledTool } from './catalog.js';
import { type RawJson, type ResultMemo, resultMemo, toolResultJson } from './jsonrpc.js';
import type { AnyTool } from './tool.js';

/** Who is calling: the key found for the request's bearer token. */
export interface McpSession {
  key: ApiKeyView;
}

/** Where a model finds a valid id when one it passed does not exist. */
const ID_SOURCES: Record<string, string> = {
  brandId: 'list_brands',
  postId: 'list_posts',
  ideaId: 'list_ideas',
  draftId: 'draft_idea (or the draft of an approval in list_approvals)',
  assetId: 'list_media',
  campaignId: 'list_campaigns',
  runId: 'run_agent',
};

class ToolFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function scopeFailure(tool: CompiledTool, key: ApiKeyView, config: Config): ToolFailure | null {
  const needed = tool.spec.scope;
  if (key.scopes.includes(needed)) return null;
  const held = key.scopes.length ? key.scopes.map((s) => `'${s}'`).join(' and ') : 'no scopes';
  const why =
    needed === 'read' && key.scopes.includes('write') ? " The 'write' scope does not include 'read'." : '';
  return new ToolFailure(
    'INSUFFICIENT_SCOPE',
    `${tool.spec.name} needs the '${needed}' scope; this key (${key.prefix}…) has ${held}.${why} Create a key with the scopes it needs in ${inTheApp('apiKeys', config)} or with POST /v1/api-keys, e.g. { "name": "agent", "scopes": ["read", "write"] }.`,
  );
}

/** The value at an issue's path in what the client sent; zod 4 issues do not carry the input. */
function sentAt(args: unknown, path: readonly PropertyKey[]): unknown {
  let node = args;
  for (const key of path) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

const article = (word: string) => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
const kindOf = (v: unknown) => (v === null ? 'null' : article(Array.isArray(v) ? 'array' : typeof v));

const MAX_NAMED_KEYS = 10;

function describeIssue(issue: z.core.$ZodIssue, args: Record<string, unknown>): string {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    // Named up to a few: 90,000 unknown names made a 900 KB error message, sent back and logged.
    const named = issue.keys.slice(0, MAX_NAMED_KEYS).map((k) => `'${field ? `${field}.` : ''}${k}'`);
    const more = issue.keys.length - named.length;
    return `unknown argument${issue.keys.length === 1 ? '' : 's'} ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  }
  if (issue.code === 'invalid_type') {
    const sent = sentAt(args, issue.path);
    // Missing and wrong are different mistakes: "required" for `7` sends a model looking for a typo.
    if (sent === undefined) return `'${field}' is required`;
    return `'${field || 'arguments'}' must be ${article(issue.expected)}, not ${kindOf(sent)}`;
  }
  return `'${field || 'arguments'}' is invalid: ${issue.message}`;
}

function argumentsFailure(tool: CompiledTool, error: z.ZodError, args: Record<string, unknown>): ToolFailure {
  const issues = error.issues.slice(0, 3).map((i) => describeIssue(i, args));
  const more = error.issues.length - issues.length;
  const params = Object.keys(tool.spec.input.shape);
  return new ToolFailure(
    'INVALID_ARGUMENTS',
    `Invalid arguments for ${tool.spec.name}: ${issues.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}. It takes ${params.length ? params.join(', ') : 'no arguments'}; see its input schema.`,
  );
}

function hintFor(err: AppError, args: Record<string, unknown>): string {
  if (err.code !== 'NOT_FOUND') return '';
  // run_agent carries its ids one level down, in `inputs`.
  const inputs = args.inputs && typeof args.inputs === 'object' ? Object.keys(args.inputs) : [];
  const sources = [...new Set([...Object.keys(args), ...inputs])]
    .filter((k) => ID_SOURCES[k])
    .map((k) => `${k} from ${ID_SOURCES[k]}`);
  return sources.length ? ` Check the id: take ${sources.join(', ')}.` : '';
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Services name request fields the way the REST API takes them (`'proposed_for'`); a tool takes
 * them in camelCase (`proposedFor`). Every quoted field name the tool takes under another name
 * is renamed, so a model reads the argument it has to fix. Paths (`'parts.0.text'`) keep their tail.
 */
export function inToolTerms(tool: Pick<AnyTool, 'input'>, message: string): string {
  let out = message;
  for (const name of Object.keys(tool.input.shape)) {
    const rest = snakeCase(name);
    if (rest !== name) out = out.replace(new RegExp(`'${rest}(?=['.])`, 'g'), `'${name}`);
  }
  return out;
}

const errorResult = (label: string, code: string, message: string): CallToolResult => ({
  content: [{ type: 'text', text: `${label} Error ${code}: ${message}` }],
  isError: true,
});

/** Each app's context with a clock that throws if read, for tools declared `readsTime: false`. */
const clockFree = new WeakMap<ContentContext, ContentContext>();

/**
 * The context a tool runs on (`syncedContext`, `clockFreeContext`). A tool that may read the time gets the sandbox clock re-read
 * (another instance may have advanced it); one declared `readsTime: false` skips that round
 * trip and gets a clock that throws if read, so the declaration cannot go stale unnoticed.
 */
async function syncedContext(ctx: ContentContext): Promise<ContentContext> {
  await ctx.clock.sync(ctx.db);
  return ctx;
}

/** Not async: a tool that never reads the time (list_agents) then costs no promise for it. */
const clockFreeContext = (ctx: ContentContext): ContentContext =>
  getOrBuild(clockFree, ctx, () => ({
    ...ctx,
    clock: ctx.clock.unsynced('This MCP tool is declared readsTime: false.'),
  }));

/** Each tool's last answer (see `ResultMemo`): keyed by its whole JSON text, so never stale. */
const lastAnswers = new WeakMap<CompiledTool, ResultMemo>();

const memoOf = (tool: CompiledTool): ResultMemo => getOrBuild(lastAnswers, tool, resultMemo);

/**
 * The data's JSON with its mode label first. Serialised once: the same JSON is the second text
 * block and the structuredContent. A deeply frozen answer (`deepFrozen`) cannot change, so its
 * JSON is kept per mode label (an instance's mode is part of the text) in the one store of kept
 * JSON (`keptJsonOf`), and the same string comes back, which also makes the memo's comparison of
 * it a pointer check.
 */
export function dataJson(label: string, data: object): string {
  return keptJsonOf(data, label, () => JSON.stringify({ mode_label: label, ...data }));
}

/**
 * One `tools/call`: scope, validation, the service call, the result with its mode label, and
 * the call log entry. Every failure a model can fix is a tool error (`isError: true`), never a
 * protocol error, so the model sees the message and can try again.
 */
export async function callTool(
  ctx: ContentContext,
  label: string,
  tool: CompiledTool,
  rawArgs: Record<string, unknown>,
  session: McpSession,
): Promise<CallToolResult | RawJson> {
  const started = ctx.stopwatch();
  let result: CallToolResult | RawJson;
  let failure: { code: string; message: string } | null = null;
  try {
    // Within this instance's lease the count needs no statement, so no await either.
    const rate = takeLeasedCall(ctx, session.key.id) ?? (await takeKeyCall(ctx, session.key.id));
    if (!rate.ok) throw new ToolFailure('RATE_LIMITED', rateLimitMessage(rate, session.key.prefix));
    const denied = scopeFailure(tool, session.key, ctx.config);
    if (denied) throw denied;
    // As REST refuses it before validation: SQLite would store it or find nothing (NOT_FOUND),
    // PostgreSQL refuses the statement; both engines answer this INVALID_REQUEST instead. Not
    // walked when the request's text already showed it holds no NUL (text-checks.ts).
    refuseNul(rawArgs, 'arguments');
    const parsed = tool.spec.input.safeParse(rawArgs);
    if (!parsed.success) throw argumentsFailure(tool, parsed.error, rawArgs);
    const runCtx = tool.spec.readsTime === false ? clockFreeContext(ctx) : await syncedContext(ctx);
    const { summary, data } = await tool.spec.run(runCtx, parsed.data, {
      source: 'mcp',
      keyId: session.key.id,
    });
    result = toolResultJson(`${label} ${summary}`, dataJson(label, data), memoOf(tool));
  } catch (err) {
    if (err instanceof ToolFailure) failure = { code: err.code, message: err.message };
    else if (err instanceof AppError)
      failure = { code: err.code, message: inToolTerms(tool.spec, err.message) + hintFor(err, rawArgs) };
    else {
      ctx.logger.error({ err, tool: tool.spec.name }, 'MCP tool failed unexpectedly');
      failure = {
        code: 'INTERNAL_ERROR',
        message: 'Something went wrong on our side; the call is in the MCP call log (GET /v1/mcp-calls).',
      };
    }
    result = errorResult(label, failure.code, failure.message);
  }
  record(ctx, {
    keyId: session.key.id,
    tool: tool.spec.name,
    args: rawArgs,
    outcome: failure ? 'error' : 'ok',
    errorCode: failure?.code ?? null,
    errorMessage: failure?.message ?? null,
    durationMs: Math.round((ctx.stopwatch() - started) * 100) / 100,
  });
  return result;
}

/** The log must not turn a done call into a failed one: a write that already happened stays reported. */
export function record(ctx: ContentContext, entry: Parameters<typeof recordToolCall>[1]): void {
  try {
    recordToolCall(ctx, entry);
  } catch (err) {
    ctx.logger.error({ err, tool: entry.tool }, 'could not record an MCP call');
  }
}
