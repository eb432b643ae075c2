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
 * A result already serialised: the `tools/list` answer (built once, 60 KB) and tool results
 * (`toolResultJson`), as text or as the UTF-8 bytes to send, whole or in pieces (joined once,
 * with the reply around them, by `serialize`).
 */
export class RawJson {
  constructor(readonly json: string | Buffer | readonly Buffer[]) {}
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * A tool's successful result: the summary's text block, then the data twice, as MCP asks, as
 * the JSON text of a second text block and as `structuredContent`. The bytes are exactly those
 * of `{"content":[{"type":"text","text":S},{"type":"text","text":JSON.stringify(json)}],
 * "structuredContent":json}` (test/content/mcp-result-bytes.test.ts), made without a second
 * JSON.stringify pass: escaping the JSON into the text block was the largest single item of a
 * small tool call (V8's string serialiser, ~8 % of list_agents' instructions), and the answer
 * was then encoded to UTF-8 at twice the data's length.
 *
 * Why escaping the UTF-8 bytes is enough: `json` comes from JSON.stringify, so it holds no
 * control character and no lone surrogate (both come out escaped), and JSON.stringify of such
 * a string only puts a backslash before each `"` and `\`. In UTF-8 the bytes 0x22 and 0x5C
 * are only ever those two characters (every byte of a multi-byte sequence is 0x80 or above).
 */
export function toolResultJson(summary: string, json: string, memo?: ResultMemo): RawJson {
  let head = memo?.summary === summary ? memo.head : null;
  if (!head) {
    head = Buffer.from(
      `{"content":[{"type":"text","text":${JSON.stringify(summary)}},{"type":"text","text":"`,
      'utf8',
    );
    if (memo) Object.assign(memo, { summary, head });
  }
  let tail = memo?.json === json ? memo.tail : null;
  if (!tail) {
    tail = escapedAndRaw(json);
    if (memo) Object.assign(memo, { json, tail });
  }
  return new RawJson([head, tail]);
}

/**
 * One tool's last answer after its summary: the escaped text block and `structuredContent`.
 * An agent polling a list gets the same data again and again, and escaping it byte by byte was
 * the largest single cost of a small call (about 145k instructions for list_agents' 3.7 KB,
 * 40 a byte in V8's optimised code, against 1 a byte to compare the JSON text). Keyed by the
 * whole JSON text, compared in full, so it cannot answer with another call's data: there is
 * nothing to invalidate.
 */
export interface ResultMemo {
  json: string;
  tail: Buffer | null;
  /** The same for the summary's text block, whose bytes were made (and escaped) on every call. */
  summary: string;
  head: Buffer | null;
}

export const resultMemo = (): ResultMemo => ({ json: '', tail: null, summary: '', head: null });

/** `json` escaped as a JSON string's content, the closing of the text block, then `json` as it is. */
function escapedAndRaw(json: string): Buffer {
  const middle = '"}],"structuredContent":';
  const data = Buffer.from(json, 'utf8');
  // Room for every byte escaped; what is not used is cut off below.
  const out = Buffer.allocUnsafe(3 * data.length + middle.length + 1);
  let at = 0;
  for (let i = 0; i < data.length; i++) {
    const byte = data[i] as number;
    if (byte === QUOTE || byte === BACKSLASH) out[at++] = BACKSLASH;
    out[at++] = byte;
  }
  at += out.write(middle, at, 'latin1');
  at += data.copy(out, at);
  out[at++] = 0x7d; // }
  return out.subarray(0, at);
}

/**
 * The reply's JSON in the pieces it was made of: a `RawJson` result is spliced in as it is
 * (bytes stay bytes) between the reply's head and its closing brace, not copied into one buffer.
 * The router writes the pieces one after another (one `writev`), so a tool answer is never
 * copied whole: joining them made an 8 KB buffer per `list_agents` call outside V8's buffer
 * pool (an allocation with its external-memory accounting, then a copy).
 */
export function serializeParts(reply: JsonRpcResponse): (string | Buffer)[] {
  if ('result' in reply && reply.result instanceof RawJson) {
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(reply.id)},"result":`;
    const { json } = reply.result;
    if (typeof json === 'string') return [`${head}${json}}`];
    return [head, ...(Buffer.isBuffer(json) ? [json] : json), '}'];
  }
  return [JSON.stringify(reply)];
}

/** JSON.stringify, except that a `RawJson` result is spliced in as it is: the pieces joined. */
export function serialize(reply: JsonRpcResponse): string | Buffer {
  const parts = serializeParts(reply);
  if (parts.length === 1) return parts[0] as string;
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

/** `open`, the parts separated by commas, `close`: text while every part is text, else bytes. */
export function joinJson(parts: (string | Buffer)[], open = '[', close = ']'): string | Buffer {
  if (parts.every((p) => typeof p === 'string')) return `${open}${parts.join(',')}${close}`;
  const chunks: Buffer[] = [Buffer.from(open)];
  parts.forEach((p, i) => {
    if (i > 0) chunks.push(Buffer.from(','));
    chunks.push(typeof p === 'string' ? Buffer.from(p) : p);
  });
  chunks.push(Buffer.from(close));
  return Buffer.concat(chunks);
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
