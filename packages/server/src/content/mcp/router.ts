import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../../platform/errors.js';
import {
  closeAfterResponse,
  NOT_ARRIVED,
  readArrivedJsonBody,
  readJsonBodyOnItsWay,
} from '../../platform/http/body.js';
import { foreignOriginRefusal } from '../../platform/http/local-only.js';
import { partOfCheckedText } from '../../platform/http/text-checks.js';
import type { ContentContext } from '../context.js';
import { authenticate } from './auth.js';
import type { McpSession } from './call-tool.js';
import type { McpEngine } from './engine.js';
import {
  classify,
  type JsonRpcResponse,
  joinJson,
  MAX_BATCH,
  RpcError,
  rpcError,
  serialize,
  serializeParts,
} from './jsonrpc.js';

export const MCP_PATH = '/mcp';

/** An HTTP-level refusal, with a JSON-RPC error body so MCP clients can show its message. */
function refuse(res: Response, status: number, message: string, headers: Record<string, string> = {}) {
  // Refused before the body is read (wrong key, method, type, origin): left open, Node would go
  // on reading and throwing away whatever body the client declared, 250 MB in 3 s from a client
  // with no key. A body that has fully arrived costs nothing to keep the connection for.
  if (!res.req.complete) closeAfterResponse(res);
  res
    .status(status)
    .set(headers)
    .json(rpcError(null, RpcError.ServerError, message));
}

function quality(accept: string, exact: string, family: string): number {
  let best = 0;
  let bestRank = -1;
  for (const entry of accept.split(',')) {
    const [type = '', ...params] = entry.trim().toLowerCase().split(';');
    const rank = type === exact ? 2 : type === family ? 1 : type === '*/*' ? 0 : -1;
    if (rank < 0 || rank < bestRank) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = q ? Number(q.slice(2)) : 1;
    best = rank > bestRank ? value : Math.max(best, value);
    bestRank = rank;
  }
  return Number.isFinite(best) ? best : 0;
}

/**
 * Which form the client gets: plain JSON unless it prefers an event stream (a higher q, or
 * only `text/event-stream`). The SDK client accepts both equally and gets JSON, the cheaper one.
 */
export function responseFormat(accept: string | undefined): 'json' | 'sse' | null {
  if (!accept) return 'json';
  // A client sends the same Accept on every call: parse each distinct one once.
  if (accept === lastAccept.header) return lastAccept.format;
  const format = negotiate(accept);
  lastAccept = { header: accept, format };
  return format;
}

let lastAccept: { header: string; format: 'json' | 'sse' | null } = { header: '', format: null };

function negotiate(accept: string): 'json' | 'sse' | null {
  const json = quality(accept, 'application/json', 'application/*');
  const sse = quality(accept, 'text/event-stream', 'text/*');
  if (json <= 0 && sse <= 0) return null;
  return sse > json ? 'sse' : 'json';
}

/**
 * `req.is('application/json')` with the common case first: type-is parses the header (media-typer)
 * on every call. The same rule: a body is present (Content-Length or Transfer-Encoding), of that type.
 */
function sendsJson(req: Request): boolean {
  if (req.headers['content-type'] !== 'application/json') return Boolean(req.is('application/json'));
  return (
    req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']))
  );
}

function send(res: Response, format: 'json' | 'sse', replies: JsonRpcResponse[], batch: boolean) {
  if (format === 'json') {
    const parts = batch ? [joinJson(replies.map(serialize))] : serializeParts(replies[0] as JsonRpcResponse);
    let length = 0;
    for (const part of parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
    // node's own setHeader: express's res.set runs every Content-Type through mime-types. The
    // length is declared, so the pieces go out as they are, not chunked: node corks the socket
    // on the first write until the next tick, so the headers and every piece leave in one writev.
    res.statusCode = 200;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    res.setHeader('content-length', length);
    const last = parts.length - 1;
    for (let i = 0; i < last; i++) res.write(parts[i] as string | Buffer);
    res.end(parts[last]);
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  for (const reply of replies) res.write(joinJson([serialize(reply)], 'event: message\ndata: ', '\n\n'));
  res.end();
}

/**
 * `POST /mcp`: Streamable HTTP, stateless. Each request is authenticated, parsed, answered
 * and closed; no session id is issued and none is read. `GET` (a server-to-client stream) and
 * `DELETE` (ending a session) have nothing to serve, so every other method is 405.
 * Mounted before the app's JSON body parser so every failure, a bad body included, has a
 * JSON-RPC body rather than the REST error shape.
 */
export function mcpRouter(
  ctx: ContentContext,
  engine: McpEngine,
  opts: { bodyLimitBytes: number },
): RequestHandler {
  /**
   * One request, start to end. Never throws: a failure is logged and answered 500 (or the answer
   * begun is ended). Its own try, not a wrapper awaiting it: one async frame and its promise a
   * call fewer (issue 20).
   */
  const handler = async (req: Request, res: Response): Promise<void> => {
    try {
      if (req.method !== 'POST') {
        refuse(
          res,
          405,
          `${req.method} is not supported: this MCP endpoint is stateless Streamable HTTP and takes POST only (no server-to-client stream, no sessions).`,
          { allow: 'POST' },
        );
        return;
      }
      // MCP 2025-11-25, transports, security warning 1: a page on another origin (or a rebound
      // name) must not reach /mcp through the person's browser. Checked before the key, so such a
      // page cannot even learn whether a key it guessed is valid.
      const foreign = foreignOriginRefusal(req, ctx.config.content.publicUrl);
      if (foreign) {
        refuse(res, 403, foreign.message);
        return;
      }
      // Awaited only when it is a promise (a key not cached, or due a stamp): see authenticate.
      const found = authenticate(ctx, req.headers.authorization);
      const auth = found instanceof Promise ? await found : found;
      if (!auth.ok) {
        refuse(res, 401, auth.message, { 'www-authenticate': auth.wwwAuthenticate });
        return;
      }
      if (!sendsJson(req)) {
        refuse(res, 415, "Send the JSON-RPC message with 'Content-Type: application/json'.");
        return;
      }
      const format = responseFormat(req.headers.accept);
      if (!format) {
        refuse(res, 406, 'The client must accept application/json or text/event-stream.');
        return;
      }
      const version = req.headers['mcp-protocol-version'];
      if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        refuse(
          res,
          400,
          `Unsupported MCP-Protocol-Version '${version}'. Supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`,
        );
        return;
      }
      // The platform's strict reader: declared length checked first, no Content-Encoding, strict
      // UTF-8. Read in place when the body has arrived (no promise), else awaited in place: wrapping
      // its outcome in an object took a promise and two closures a call. The headers are checked
      // once, by the first step; a body still on its way only has its bytes left to read.
      try {
        const arrived = readArrivedJsonBody(req, opts.bodyLimitBytes);
        req.body = arrived === NOT_ARRIVED ? await readJsonBodyOnItsWay(req, opts.bodyLimitBytes) : arrived;
      } catch (failed) {
        refuseBody(res, failed);
        return;
      }
      await answer(req, res, auth.session, format);
    } catch (err) {
      ctx.logger.error({ err, requestId: req.requestId }, 'MCP request failed');
      if (!res.headersSent)
        refuse(res, 500, 'Something went wrong on our side. Quote the Service-Request-Id when reporting it.');
      else res.end();
    }
  };

  /** A body that could not be read or parsed: its JSON-RPC error, with the reader's HTTP status. */
  function refuseBody(res: Response, failed: unknown) {
    if (!(failed instanceof AppError)) throw failed;
    const { status, message } = failed;
    if (status === 413) closeAfterResponse(res);
    res
      .status(status)
      .json(
        rpcError(
          null,
          failed.code === 'INVALID_JSON' ? RpcError.ParseError : RpcError.InvalidRequest,
          failed.code === 'INVALID_JSON' ? `Parse error: ${message}` : message,
        ),
      );
  }

  async function answer(req: Request, res: Response, session: McpSession, format: 'json' | 'sse') {
    const body: unknown = req.body;
    const batch = Array.isArray(body);
    const messages: unknown[] = batch ? body : [body];
    if (messages.length === 0 || messages.length > MAX_BATCH) {
      res
        .status(400)
        .json(rpcError(null, RpcError.InvalidRequest, `A batch holds 1 to ${MAX_BATCH} messages.`));
      return;
    }
    const replies: JsonRpcResponse[] = [];
    for (const raw of messages) {
      // A batch's message is part of the body's text: it carries what that text showed.
      if (batch) partOfCheckedText(body, raw);
      const incoming = classify(raw);
      if (typeof incoming === 'string') {
        const id = (raw as { id?: unknown } | null)?.id;
        const reply = rpcError(
          typeof id === 'string' || typeof id === 'number' ? id : null,
          RpcError.InvalidRequest,
          incoming,
        );
        if (!batch) {
          res.status(400).json(reply);
          return;
        }
        replies.push(reply);
        continue;
      }
      // Notifications (initialized, cancelled) and stray responses need no answer in a stateless server.
      if (incoming.kind !== 'request') continue;
      replies.push(await engine.answer(incoming.message, session));
      // Let other requests (health checks, the app, other agents) run between two calls.
      if (batch) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (replies.length === 0) {
      res.status(202).end();
      return;
    }
    send(res, format, replies, batch);
  }

  // A middleware rather than a Router holding one route: every /mcp call walked the Router's
  // own layer, path match and route dispatch. The same match as that Router's `all(MCP_PATH)`:
  // any method, case-insensitive, an optional trailing slash.
  return (req, res, next) => (MCP_PATHS.test(req.path) ? handler(req, res) : next());
}

const MCP_PATHS = new RegExp(`^${MCP_PATH}/?$`, 'i');
