import { AppError } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import { PAGE } from '../domain.js';
import { getBrandMemory, listBrands } from '../services/brands.js';
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

/** `resources/read` of `service://brands/{brandId}/memory`; recorded in the call log like a tool. */
export async function readResource(ctx: ContentContext, label: string, uri: string, session: McpSession) {
  const started = ctx.stopwatch();
  try {
    const match = MEMORY_URI.exec(uri);
    if (!match?.[1])
      throw new ResourceError(
        RpcError.InvalidParams,
        'UNKNOWN_RESOURCE',
        `Unknown resource '${uri}'. This server has one resource template: ${MEMORY_TEMPLATE}.`,
      );
    if (!session.key.scopes.includes('read'))
      throw new ResourceError(
        RpcError.Forbidden,
        'INSUFFICIENT_SCOPE',
        `Reading Brand Memory needs the 'read' scope; this key (${session.key.prefix}…) has ${session.key.scopes.map((s) => `'${s}'`).join(' and ') || 'no scopes'}.`,
        { required_scope: 'read', key_scopes: session.key.scopes },
      );
    const brandId = decodeURIComponent(match[1]);
    let memory: Awaited<ReturnType<typeof getBrandMemory>>;
    try {
      memory = await getBrandMemory(ctx, brandId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND')
        throw new ResourceError(
          RpcError.ResourceNotFound,
          'NOT_FOUND',
          `${err.message} list_brands gives brand ids.`,
          { uri },
        );
      throw err;
    }
    await record(ctx, {
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
    await record(ctx, {
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
