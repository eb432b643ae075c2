import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { partOfCheckedText } from '../../platform/http/text-checks.js';
import { VERSION } from '../../version.js';
import { inTheApp } from '../app-pages.js';
import type { ContentContext } from '../context.js';
import { isEmpty } from '../services/mcp-calls.js';
import { modeLabel } from '../services/mode.js';
import { rateLimitMessage, takeKeyCall } from '../services/rate-limits.js';
import { callTool, type McpSession, record } from './call-tool.js';
import { compileCatalog } from './catalog.js';
import { CompletionError, complete } from './completions.js';
import { type JsonRpcRequest, type JsonRpcResponse, RpcError, rpcError, rpcResult } from './jsonrpc.js';
import { getPrompt, PromptError, promptsListResult } from './prompts.js';
import { listResources, ResourceError, readResource, templatesResult } from './resources.js';
import { TOOLS } from './tools/index.js';

export const SERVER_NAME = 'svc-content';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const INSTRUCTIONS = [
  'Content-planning tools for the svc service: brands and their Brand Memory, ideas, per-platform drafts, posts with metrics, the approval queue, campaigns, media and built-in agents.',
  'Every result starts with the mode label, e.g. "(sandbox · simulated)": in sandbox nothing is really published, and a simulated model writes the text.',
  `Keys can read and propose, never publish: propose_post puts a draft in the approval queue for a person to approve in ${inTheApp('approvals')}. No tool publishes, schedules, approves or deletes.`,
  "Read tools need the key's 'read' scope and write tools its 'write' scope; 'write' does not include 'read'.",
  'Start with list_brands, then get_brand_memory before writing for a brand.',
].join(' ');

export type McpEngine = ReturnType<typeof createMcpEngine>;

/**
 * The methods besides tools/call that reach the content services: they re-read the shared
 * sandbox clock first (another instance may have advanced it). tools/call does it per tool
 * (call-tool.ts); the rest (initialize, ping, the lists of tools, prompts and templates) never
 * read the time.
 */
const READS_TIME = new Set(['resources/list', 'resources/read', 'completion/complete']);

/**
 * The MCP server, minus HTTP. Everything fixed is built once per app: the tool catalog (its
 * JSON Schemas and the `tools/list` answer on the first `tools/list`, see `compileCatalog`), the
 * `resources/templates/list` result, the mode label. A request then costs a map lookup, a zod
 * parse of its arguments and the call.
 *
 * Why not the SDK's `McpServer`: a `Server` binds to one transport at a time (`connect` throws
 * while connected), so stateless serving means one server per request, and `McpServer` converts
 * every tool's zod schema to JSON Schema on every `tools/list`. Its types and protocol versions
 * are still the SDK's.
 */
export function createMcpEngine(ctx: ContentContext) {
  const label = modeLabel(ctx.config);
  const catalog = compileCatalog(TOOLS);
  const { tools } = catalog;
  // Only what is implemented. No `logging`: a stateless server keeps no per-client level and has
  // no stream outside a request to send notifications on, so it sends none (docs/content/mcp.md).
  const capabilities = {
    tools: { listChanged: false },
    resources: { subscribe: false, listChanged: false },
    prompts: { listChanged: false },
    completions: {},
  };

  function initialize(params: Record<string, unknown>) {
    const asked = params.protocolVersion;
    const protocolVersion =
      typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked)
        ? asked
        : LATEST_PROTOCOL_VERSION;
    return {
      protocolVersion,
      capabilities,
      serverInfo: { name: SERVER_NAME, title: 'svc content planning', version: VERSION },
      instructions: INSTRUCTIONS,
    };
  }

  /**
   * The per-key limit for the methods that read data but are not recorded calls (tools/call and
   * resources/read count inside callTool and readResource, so the refusal is logged with them).
   */
  async function overLimit(id: JsonRpcRequest['id'], session: McpSession): Promise<JsonRpcResponse | null> {
    const rate = await takeKeyCall(ctx, session.key.id);
    if (rate.ok) return null;
    return rpcError(id, RpcError.ServerError, rateLimitMessage(rate, session.key.prefix), {
      retry_after_seconds: rate.retryAfterSeconds,
    });
  }

  /**
   * One request's answer. Never throws: an unexpected failure becomes a JSON-RPC internal error
   * for that request. One async frame with its own try, not a wrapper awaiting the handler (a
   * promise and a turn of the microtask queue fewer on every call, issue 20): every branch
   * returns a value built after its awaits, never a pending promise, so each failure lands here.
   */
  async function answer(request: JsonRpcRequest, session: McpSession): Promise<JsonRpcResponse> {
    try {
      const { id, method } = request;
      const params = request.params ?? {};
      if (READS_TIME.has(method)) await ctx.clock.sync(ctx.db);
      switch (method) {
        case 'initialize':
          return rpcResult(id, initialize(params));
        case 'ping':
          return rpcResult(id, {});
        case 'tools/list':
          return rpcResult(id, catalog.listJson());
        case 'tools/call': {
          const { name, arguments: args } = params;
          if (typeof name !== 'string')
            return rpcError(id, RpcError.InvalidParams, 'tools/call needs params.name.');
          const tool = tools.get(name);
          // Naming a tool that was never listed is a client bug, so it is a protocol error (as MCP says).
          if (!tool) {
            record(ctx, {
              keyId: session.key.id,
              tool: name.slice(0, 60),
              args: isObject(args) ? args : {},
              outcome: 'error',
              errorCode: 'UNKNOWN_TOOL',
              errorMessage: `Unknown tool '${name}'.`,
            });
            return rpcError(
              id,
              RpcError.InvalidParams,
              `Unknown tool '${name}'. This server has ${tools.size} tools; tools/list names them.`,
            );
          }
          if (args !== undefined && !isObject(args))
            return rpcError(id, RpcError.InvalidParams, 'params.arguments must be an object.');
          // Parsed from the request's text: what that text showed (no NUL) holds for them too.
          // Arguments with nothing in them (list_agents) have nothing to walk: no mark (a WeakMap
          // entry, which the garbage collector then has to visit) is needed for them.
          if (args !== undefined && !isEmpty(args)) partOfCheckedText(request, args);
          return rpcResult(
            id,
            await callTool(ctx, label, tool, (args ?? {}) as Record<string, unknown>, session),
          );
        }
        case 'resources/templates/list':
          return rpcResult(id, templatesResult);
        case 'resources/list':
          return (await overLimit(id, session)) ?? rpcResult(id, await listResources(ctx, session));
        case 'resources/read': {
          if (typeof params.uri !== 'string')
            return rpcError(id, RpcError.InvalidParams, 'resources/read needs params.uri.');
          try {
            return rpcResult(id, await readResource(ctx, label, params.uri, session));
          } catch (err) {
            if (err instanceof ResourceError) return rpcError(id, err.code, err.message, err.data);
            throw err;
          }
        }
        case 'prompts/list':
          return rpcResult(id, promptsListResult);
        case 'prompts/get':
          try {
            return rpcResult(id, getPrompt(params.name, params.arguments));
          } catch (err) {
            if (err instanceof PromptError) return rpcError(id, err.code, err.message);
            throw err;
          }
        case 'completion/complete':
          try {
            const refused = await overLimit(id, session);
            if (refused) return refused;
            return rpcResult(id, await complete(ctx, params, session));
          } catch (err) {
            if (err instanceof CompletionError) return rpcError(id, err.code, err.message);
            throw err;
          }
        default:
          return rpcError(id, RpcError.MethodNotFound, `Method '${method}' is not supported by this server.`);
      }
    } catch (err) {
      ctx.logger.error({ err, method: request.method }, 'MCP request failed');
      return rpcError(request.id, RpcError.InternalError, 'Something went wrong on our side.');
    }
  }

  return { label, tools, listResult: catalog.listResult, answer };
}
