import type { CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import { PLATFORMS } from '../domain.js';
import { listAgents } from '../services/agent-runs.js';
import { listBrands } from '../services/brands.js';
import { listDrafts } from '../services/drafts.js';
import { listIdeas } from '../services/ideas.js';
import type { McpSession } from './call-tool.js';
import { RpcError } from './jsonrpc.js';
import { type CompletableArgument, findPrompt } from './prompts.js';
import { MEMORY_TEMPLATE } from './resources.js';

/** MCP caps a completion at 100 values; one page of each list is read, never more. */
const MAX_VALUES = 100;

/** A candidate: the value that fills the argument, and words a person might type to find it. */
interface Candidate {
  value: string;
  label: string;
}

export class CompletionError extends Error {
  readonly code = RpcError.InvalidParams;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Where each argument's values come from: the same services the read tools call, one page each.
 * Ideas, drafts and media narrow to the brand already chosen (`context.arguments.brandId`).
 */
async function candidates(
  ctx: ContentContext,
  argument: CompletableArgument,
  brandId: string | undefined,
): Promise<{ items: Candidate[]; more: boolean }> {
  const page = { limit: MAX_VALUES };
  switch (argument) {
    case 'brandId': {
      const p = await listBrands(ctx, page);
      return { items: p.items.map((b) => ({ value: b.id, label: b.name })), more: p.has_more };
    }
    case 'ideaId': {
      const p = await listIdeas(ctx, { brand_id: brandId }, page);
      return { items: p.items.map((i) => ({ value: i.id, label: i.title })), more: p.has_more };
    }
    case 'draftId': {
      const p = await listDrafts(ctx, { brand_id: brandId }, page);
      return { items: p.items.map((d) => ({ value: d.id, label: d.platform })), more: p.has_more };
    }
    case 'assetId': {
      // The media library is per brand; without one chosen there is nothing to offer.
      if (!brandId) return { items: [], more: false };
      const p = await ctx.media.listAssets(brandId, page);
      return { items: p.assets.map((a) => ({ value: a.id, label: a.alt })), more: p.has_more };
    }
    case 'agentId':
      return { items: listAgents().map((a) => ({ value: a.id, label: a.name })), more: false };
    case 'platform':
      return { items: PLATFORMS.map((p) => ({ value: p, label: p })), more: false };
  }
}

/** Which arguments a reference takes: a prompt's own, or the variables of the resource template. */
function argumentsOf(ref: unknown): string[] {
  if (!isObject(ref)) throw new CompletionError('completion/complete needs params.ref.');
  if (ref.type === 'ref/prompt') {
    const prompt = typeof ref.name === 'string' ? findPrompt(ref.name) : undefined;
    if (!prompt)
      throw new CompletionError(
        `Unknown prompt '${String(ref.name).slice(0, 60)}'; prompts/list names them.`,
      );
    return prompt.arguments.map((a) => a.name);
  }
  if (ref.type === 'ref/resource') {
    if (ref.uri !== MEMORY_TEMPLATE)
      throw new CompletionError(
        `Unknown resource template '${String(ref.uri).slice(0, 200)}'; this server has one: ${MEMORY_TEMPLATE}.`,
      );
    return ['brandId'];
  }
  throw new CompletionError("params.ref.type must be 'ref/prompt' or 'ref/resource'.");
}

/**
 * `completion/complete`: values for an argument, drawn only from what the key may read. A key
 * without the 'read' scope gets none (completions would otherwise read lists the key cannot).
 * Matching is by prefix of the value or by the words of its label, case-insensitive.
 */
export async function complete(
  ctx: ContentContext,
  params: Record<string, unknown>,
  session: McpSession,
): Promise<CompleteResult> {
  const names = argumentsOf(params.ref);
  const argument = params.argument;
  if (!isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string')
    throw new CompletionError('params.argument must be { name, value }, both strings.');
  if (!names.includes(argument.name))
    throw new CompletionError(
      `'${argument.name.slice(0, 60)}' is not an argument here; it takes ${names.join(', ')}.`,
    );
  const none: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };
  if (!session.key.scopes.includes('read')) return none;

  const context =
    isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  const brandId = typeof context.brandId === 'string' && context.brandId ? context.brandId : undefined;
  let found: { items: Candidate[]; more: boolean };
  try {
    found = await candidates(ctx, argument.name as CompletableArgument, brandId);
  } catch (err) {
    // A brand chosen in context that does not exist has nothing to complete.
    if (err instanceof AppError && err.code === 'NOT_FOUND') return none;
    throw err;
  }
  const typed = argument.value.trim().toLowerCase();
  const matches = found.items.filter(
    (c) => c.value.toLowerCase().startsWith(typed) || c.label.toLowerCase().includes(typed),
  );
  return {
    completion: {
      values: matches.slice(0, MAX_VALUES).map((c) => c.value),
      // Only one page is read, so the total is known only when that page was the whole list.
      ...(found.more ? {} : { total: matches.length }),
      hasMore: found.more || matches.length > MAX_VALUES,
    },
  };
}
