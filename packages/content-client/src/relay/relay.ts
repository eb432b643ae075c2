import { createInterface } from 'node:readline';
import { VERSION } from '../version.js';
import { type RelayConfig, RelayConfigError, relayConfig } from './config.js';
import { sseData } from './sse.js';

/** Exit codes, so a wrapper script can tell the failures apart. */
export const EXIT = { ok: 0, unexpected: 1, config: 2, unreachable: 3, refused: 4 } as const;

export interface RelayIo {
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream;
  /** One protocol message per call, without the newline. Nothing else ever goes to stdout. */
  writeMessage(line: string): void;
  /** Human-readable diagnostics. */
  writeError(text: string): void;
  fetch?: typeof fetch;
}

type JsonRpcId = string | number;

class Fatal extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

const START_HINT = 'Is the API running? Start it with `npx svc-server start`.';

function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** What the server said in a refusal body (JSON-RPC or REST shape), for the stderr line. */
function serverMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    if (body?.error?.message) return body.error.message;
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return text.slice(0, 200);
}

/**
 * The stdio relay: each newline-delimited JSON-RPC message on stdin is POSTed to
 * `{SERVICE_API_URL}/mcp` with the bearer key, and every message in the answer (a JSON body
 * or the `data:` of each SSE event) is written to stdout as one line. Messages are forwarded
 * as they arrive, without waiting for earlier answers, so a long agent run does not hold up
 * a ping; MCP clients match answers by id.
 *
 * Resolves with the exit code: 0 when stdin ends, non-zero (and a line on stderr) when the
 * configuration is incomplete, the service cannot be reached, or it refuses the key.
 */
export async function runRelay(io: RelayIo): Promise<number> {
  const doFetch = io.fetch ?? fetch;
  let config: RelayConfig;
  try {
    config = relayConfig(io.env);
  } catch (err) {
    if (!(err instanceof RelayConfigError)) throw err;
    io.writeError(`svc-mcp: ${err.message}\n`);
    return EXIT.config;
  }
  let protocolVersion: string | null = null;

  async function post(body: string): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${config.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'user-agent': `svc-mcp/${VERSION}`,
    };
    if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
    let res: Response;
    try {
      res = await doFetch(config.endpoint, { method: 'POST', headers, body });
    } catch (err) {
      throw new Fatal(
        EXIT.unreachable,
        `cannot reach the content service at ${config.endpoint} (${describeNetworkError(err)}). ${START_HINT}`,
      );
    }
    if (res.status === 401 || res.status === 403) {
      const detail = serverMessage(await res.text());
      throw new Fatal(
        EXIT.refused,
        `the content service refused the API key (HTTP ${res.status}): ${detail} Check SERVICE_API_KEY; keys are made in the app (Settings → API keys, ${config.endpoint.replace(/\/mcp$/, '')}/settings#api-keys) or with POST /v1/api-keys.`,
      );
    }
    if (res.status === 404) {
      throw new Fatal(
        EXIT.unreachable,
        `there is no MCP endpoint at ${config.endpoint} (HTTP 404). Check that SERVICE_API_URL points at the content service. ${START_HINT}`,
      );
    }
    return res;
  }

  // Checked once before the first message, so a misconfigured relay says so at once, even
  // before the MCP client sends anything.
  try {
    const probe = await post(JSON.stringify({ jsonrpc: '2.0', id: 'svc-mcp-probe', method: 'ping' }));
    await probe.arrayBuffer();
  } catch (err) {
    if (!(err instanceof Fatal)) throw err;
    io.writeError(`svc-mcp: ${err.message}\n`);
    return err.exitCode;
  }

  const emit = (raw: string) => {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      io.writeError(`svc-mcp: dropped a reply that is not JSON: ${raw.slice(0, 200)}\n`);
      return;
    }
    for (const m of Array.isArray(message) ? message : [message]) {
      const result = (m as { result?: { protocolVersion?: unknown } })?.result;
      // Later requests carry the negotiated version, as the Streamable HTTP transport asks.
      if (typeof result?.protocolVersion === 'string') protocolVersion = result.protocolVersion;
      io.writeMessage(JSON.stringify(m));
    }
  };

  const replyError = (id: JsonRpcId | undefined, message: string) => {
    if (id === undefined) return;
    io.writeMessage(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message } }));
  };

  async function forward(line: string): Promise<void> {
    let id: JsonRpcId | undefined;
    try {
      const parsed = JSON.parse(line) as { id?: unknown };
      if (typeof parsed?.id === 'string' || typeof parsed?.id === 'number') id = parsed.id;
    } catch {
      // The service answers a body that is not JSON with a JSON-RPC parse error; pass it on.
    }
    try {
      const res = await post(line);
      if (res.status === 202) return;
      const type = res.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream') && res.body) {
        for await (const data of sseData(res.body as unknown as AsyncIterable<Uint8Array>)) emit(data);
        return;
      }
      const text = await res.text();
      if (type.includes('json')) emit(text);
      else replyError(id, `HTTP ${res.status} from the content service: ${text.slice(0, 200)}`);
    } catch (err) {
      if (err instanceof Fatal) {
        replyError(id, `svc-mcp: ${err.message}`);
        throw err;
      }
      replyError(id, `svc-mcp: the reply could not be read (${describeNetworkError(err)}).`);
    }
  }

  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  const pending = new Set<Promise<void>>();
  let fatal: Fatal | null = null;
  for await (const raw of lines) {
    if (fatal) break;
    const line = raw.trim();
    if (!line) continue;
    const p = forward(line)
      .catch((err: unknown) => {
        if (fatal) return;
        fatal = err instanceof Fatal ? err : new Fatal(EXIT.unexpected, String(err));
        io.writeError(`svc-mcp: ${fatal.message}\n`);
        lines.close();
      })
      .finally(() => pending.delete(p));
    pending.add(p);
  }
  await Promise.all(pending);
  return (fatal as Fatal | null)?.exitCode ?? EXIT.ok;
}
