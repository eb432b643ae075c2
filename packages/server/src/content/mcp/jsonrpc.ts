/**
 * The little of JSON-RPC 2.0 the stateless endpoint needs, checked by hand: this runs on
 * every request, and a zod parse of the SDK's full message union would cost more than the
 * lookups the tools do.
 */

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId | null; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId | null; error: { code: number; message: string; data?: unknown } };

/** Standard JSON-RPC codes, plus the server-defined ones this endpoint uses (documented in docs/content/mcp.md). */
export const RpcError = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** HTTP-level refusals (auth, method, content type) carry this in their body. */
  ServerError: -32000,
  /** The key lacks the scope a resource read needs (tools answer with a tool error instead). */
  Forbidden: -32003,
  /** MCP's code for a resource that does not exist. */
  ResourceNotFound: -32002,
} as const;

export const rpcError = (
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcResponse => ({
  jsonrpc: '2.0',
  id,
  error: data === undefined ? { code, message } : { code, message, data },
});

export const rpcResult = (id: JsonRpcId, result: unknown): JsonRpcResponse => ({
  jsonrpc: '2.0',
  id,
  result,
});

/**
 * A result already serialised: the `tools/list` answer (built once, 60 KB) and tool results,
 * whose data is serialised once for the text block and reused for `structuredContent`.
 */
export class RawJson {
  constructor(readonly json: string) {}
}

/** JSON.stringify, except that a `RawJson` result is spliced in as it is. */
export function serialize(reply: JsonRpcResponse): string {
  if ('result' in reply && reply.result instanceof RawJson)
    return `{"jsonrpc":"2.0","id":${JSON.stringify(reply.id)},"result":${reply.result.json}}`;
  return JSON.stringify(reply);
}

/**
 * At most this many messages in one batch; a batch is a convenience, not a bulk API. Each call in
 * it also counts against the key's rate limit, and the router yields to the event loop between
 * calls, so one batch of writes cannot hold every other request (a 50-write batch once held
 * /health for 14.5 s).
 */
export const MAX_BATCH = 20;

export type Incoming =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification' }
  | { kind: 'response' };

const isId = (v: unknown): v is JsonRpcId =>
  (typeof v === 'string' && v.length <= 200) || (typeof v === 'number' && Number.isFinite(v));

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Classifies one message, or returns why it is not a JSON-RPC 2.0 message. */
export function classify(raw: unknown): Incoming | string {
  if (!isObject(raw)) return 'Each message must be a JSON object.';
  if (raw.jsonrpc !== '2.0') return 'Each message must have "jsonrpc": "2.0".';
  if (typeof raw.method === 'string') {
    if (raw.params !== undefined && !isObject(raw.params)) return '"params" must be an object.';
    if (!('id' in raw)) return { kind: 'notification' };
    if (!isId(raw.id)) return '"id" must be a string or a number.';
    return { kind: 'request', message: raw as unknown as JsonRpcRequest };
  }
  // A client's answer to a server request. A stateless server never asks, so it is dropped.
  if ('result' in raw || 'error' in raw) return { kind: 'response' };
  return 'A message needs a "method" (request or notification) or a "result"/"error" (response).';
}
