import { AppError } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import { PAGE } from '../domain.js';
import { getBrandMemory, listBrands } from '../services/brands.js';
import { rateLimitMessage, takeKeyCall } from '../services/rate-limits.js';
import { type McpSession, record } from './call-tool.js';
import { RpcError } from './jsonrpc.js';

export const MEMORY_TEMPLATE = 'service://brands/{brandId}/memory';
const MEMORY_URI = /^service:\/\/brands\/([^/?#]+)\/memory$/;

export const memoryUri = (brandId: string) => `service://brands/${encodeURIComponent(brandId)}/memory`;

const MEMORY_DESCRIPTION =
  "A brand's Brand Memory as JSON: voice (summary, do, avoid, banned words), audiences, products, knowledge notes, style rules and example posts. Needs the 'read' scope.";

/** `resources/templates/list`: fixed, so built once. */
export const templatesResult = {
  resourceTemplates: [
    {
      uriTemplate: MEMORY_TEMPLATE,
      name: 'brand_memory',
      title: 'Brand Memory',
      description: MEMORY_DESCRIPTION,
      mimeType: 'application/json',
    },
  ],
};

/** A refusal `resources/read` answers with as a JSON-RPC error (resources have no tool-error form). */
export class ResourceError extends Error {
  constructor(
    readonly code: number,
    /** The code the call log records, in the tools' vocabulary. */
    readonly reason: string,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * `resources/list`: each brand's memory as a concrete resource, for clients that do not expand
 * templates. Listing is discovery, so a key without `read` gets an empty list, not an error.
 */
export async function listResources(ctx: ContentContext, session: McpSession) {
  if (!session.key.scopes.includes('read')) return { resources: [] };
  const page = await listBrands(ctx, { limit: PAGE.maxLimit });
  return {
    resources: page.items.map((b) => ({
      uri: memoryUri(b.id),
      name: `${b.name} Brand Memory`,
      title: `${b.name} — Brand Memory`,
      description: MEMORY_DESCRIPTION,
      mimeType: 'application/json',
    })),
  };
}

/**
 * The one rule for a resource that does not exist, whether the URI matches no template or names
 * a brand that is not there: `-32002` with the URI in `data`, as the resources page of every
 * revision this server negotiates (2024-11-05 to 2025-11-25) says. SEP-2164 moves it to `-32602`
 * from revision 2026-07-28 on; this is the one place to change when that revision is offered.
 */
const resourceNotFound = (uri: string, message: string) =>
  new ResourceError(RpcError.ResourceNotFound, 'NOT_FOUND', message, { uri });

/** The brand id in a memory URI, or why the URI names no resource of this server. */
function brandIdOf(uri: string): string {
  const match = MEMORY_URI.exec(uri);
  if (!match?.[1])
    throw resourceNotFound(
      uri,
      `Unknown resource '${uri.slice(0, 200)}'. This server has one resource template: ${MEMORY_TEMPLATE}.`,
    );
  try {
    return decodeURIComponent(match[1]);
  } catch {
    // A malformed percent-escape is the client's mistake in the params, not a missing resource.
    throw new ResourceError(
      RpcError.InvalidParams,
      'INVALID_URI',
      `The resource URI '${uri.slice(0, 200)}' has a malformed percent-escape; encode the brand id with encodeURIComponent.`,
      { uri },
    );
  }
}

/** `resources/read` of `service://brands/{brandId}/memory`; recorded in the call log like a tool. */
export async function readResource(ctx: ContentContext, label: string, uri: string, session: McpSession) {
  const started = ctx.stopwatch();
  try {
    const brandId = brandIdOf(uri);
    const rate = await takeKeyCall(ctx, session.key.id);
    if (!rate.ok)
      throw new ResourceError(
        RpcError.ServerError,
        'RATE_LIMITED',
        rateLimitMessage(rate, session.key.prefix),
        {
          retry_after_seconds: rate.retryAfterSeconds,
        },
      );
    if (!session.key.scopes.includes('read'))
      throw new ResourceError(
        RpcError.Forbidden,
        'INSUFFICIENT_SCOPE',
        `Reading Brand Memory needs the 'read' scope; this key (${session.key.prefix}…) has ${session.key.scopes.map((s) => `'${s}'`).join(' and ') || 'no scopes'}.`,
        { required_scope: 'read', key_scopes: session.key.scopes },
      );
    let memory: Awaited<ReturnType<typeof getBrandMemory>>;
    try {
      memory = await getBrandMemory(ctx, brandId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND')
        throw resourceNotFound(uri, `${err.message} list_brands gives brand ids.`);
      throw err;
    }
    record(ctx, {
      keyId: session.key.id,
      tool: 'resources/read',
      args: { uri },
      outcome: 'ok',
      durationMs: ctx.stopwatch() - started,
    });
    return {
      contents: [
        {
          uri,
          mimeType: 'application/json',
          text: JSON.stringify(memory, null, 2),
          _meta: { mode_label: label },
        },
      ],
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    record(ctx, {
      keyId: session.key.id,
      tool: 'resources/read',
      args: { uri },
      outcome: 'error',
      errorCode: err instanceof ResourceError ? err.reason : 'INTERNAL_ERROR',
      errorMessage: message,
      durationMs: ctx.stopwatch() - started,
    });
    throw err;
  }
}
