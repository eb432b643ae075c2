import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openApiValidator } from './spec-validator.js';

/**
 * A local OpenAI-compatible chat completions server that follows the published OpenAI API
 * document (../shared/platform-specs/openai/openapi.json, the contract Ollama, vLLM, LM Studio
 * and llama.cpp's server also speak). Every request is validated against
 * CreateChatCompletionRequest and every answer against CreateChatCompletionResponse or
 * ErrorResponse: a request the contract does not allow is answered 400 AND recorded in
 * `violations`, so a test fails on it even when the adapter would swallow the 400.
 */

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: {
    type: string;
    json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
  };
  [key: string]: unknown;
}

/** What the fake does with the next request; the default answers with `respond(request)`. */
export type Behaviour =
  | {
      kind: 'status';
      status: 400 | 401 | 429 | 500 | 503;
      message?: string;
      headers?: Record<string, string>;
    }
  | { kind: 'hang' }
  | { kind: 'content'; content: string };

export interface OpenAiFake {
  /** The base URL, `/v1` included, as SERVICE_MODEL_BASE_URL takes it. */
  baseUrl: string;
  requests: ChatRequest[];
  /** The token usage of each answer given, in order, as the server reported it. */
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number }[];
  /** Requests that broke the published contract; a test asserts this is empty. */
  violations: string[];
  /** Queue behaviours for the next requests, in order; afterwards `respond` answers. */
  queue(...b: Behaviour[]): void;
  close(): Promise<void>;
}

const spec = openApiValidator('openai/openapi.json');

export async function startOpenAiFake(opts: {
  /** Builds the assistant message content (a JSON string for structured answers). */
  respond: (req: ChatRequest) => string;
  apiKey?: string;
  /** Like older Ollama: answer 400 to `response_format: json_schema` (JSON mode still works). */
  rejectJsonSchema?: boolean;
  /** Awaited before a request is answered: lets a test keep several calls in flight at once. */
  hold?: (req: ChatRequest) => Promise<void>;
}): Promise<OpenAiFake> {
  const requests: ChatRequest[] = [];
  const usage: OpenAiFake['usage'] = [];
  const violations: string[] = [];
  const pending: Behaviour[] = [];
  const hanging = new Set<ServerResponse>();
  let n = 0;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    spec.check(status < 300 ? 'CreateChatCompletionResponse' : 'ErrorResponse', body, 'the fake’s answer');
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  const error = (message: string, type: string, param: string | null = null, code: string | null = null) => ({
    error: { message, type, param, code },
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return send(res, 404, error(`Unknown route ${req.method} ${req.url}`, 'invalid_request_error'));
    }
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return send(
        res,
        401,
        error('Incorrect API key provided.', 'invalid_request_error', null, 'invalid_api_key'),
      );
    }
    if (!String(req.headers['content-type']).startsWith('application/json')) {
      violations.push(`content-type ${req.headers['content-type']}`);
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: ChatRequest;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      spec.check('CreateChatCompletionRequest', body, 'the adapter’s request');
    } catch (err) {
      violations.push((err as Error).message);
      return send(res, 400, error((err as Error).message, 'invalid_request_error'));
    }
    requests.push(body);
    await opts.hold?.(body);

    const behaviour = pending.shift();
    if (behaviour?.kind === 'hang') {
      hanging.add(res);
      return;
    }
    if (behaviour?.kind === 'status') {
      const type =
        behaviour.status === 429
          ? 'rate_limit_exceeded'
          : behaviour.status >= 500
            ? 'server_error'
            : 'invalid_request_error';
      return send(
        res,
        behaviour.status,
        error(behaviour.message ?? `fake ${behaviour.status}`, type),
        behaviour.headers,
      );
    }
    if (opts.rejectJsonSchema && body.response_format?.type === 'json_schema') {
      return send(
        res,
        400,
        error(
          "response_format type 'json_schema' is not supported by this server",
          'invalid_request_error',
          'response_format',
        ),
      );
    }
    const content = behaviour?.kind === 'content' ? behaviour.content : opts.respond(body);
    const promptTokens = body.messages.reduce((sum, m) => sum + Math.ceil(String(m.content).length / 4), 0);
    const completionTokens = Math.ceil(content.length / 4);
    usage.push({
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    });
    send(res, 200, {
      id: `chatcmpl-${++n}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          logprobs: null,
          message: { role: 'assistant', content, refusal: null },
        },
      ],
      usage: usage.at(-1),
    });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      violations.push(`fake failed: ${(err as Error).message}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    usage,
    violations,
    queue: (...b) => pending.push(...b),
    close: () =>
      new Promise((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
