import { AppError } from '../../platform/errors.js';
import { BodyTooLargeError, readCappedText } from '../../platform/net/capped-body.js';
import {
  JsonTooDeepError,
  OUTSIDE_JSON_MAX_DEPTH,
  parseOutsideJsonSteps,
} from '../../platform/sliced/json.js';
import { readSliced } from '../../platform/sliced/work.js';
import { trimTrailingSlashes } from '../../platform/trim-end.js';

/**
 * A thin client for one endpoint of the OpenAI-compatible API: `POST {baseUrl}/chat/completions`.
 * Not the `openai` package: its current major needs Node 22, and we use one endpoint whose
 * contract (../shared/platform-specs/openai/openapi.json) is small enough to own, with the
 * retry rules the rest of svc uses.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export type ResponseFormat =
  | { type: 'json_schema'; json_schema: { name: string; strict: true; schema: Record<string, unknown> } }
  | { type: 'json_object' };

export interface ChatRequest {
  messages: ChatMessage[];
  response_format: ResponseFormat;
  temperature?: number;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatAnswer {
  content: string;
  usage: TokenUsage | null;
}

export interface ChatTransportOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Per attempt. Local models can be slow; 60 s by default. */
  timeoutMs?: number;
  /** Retries after the first attempt for connection errors, timeouts, 429 and 5xx. */
  maxRetries?: number;
  /** First back-off step; doubles each retry, with jitter. */
  retryBaseMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** The server refused the request itself (4xx other than 429); the body says why. */
export class ModelRequestRefused extends Error {
  constructor(
    readonly status: number,
    readonly param: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'ModelRequestRefused';
  }
}

const MAX_RETRY_AFTER_MS = 30_000;

/**
 * The most of one answer from the model server that is read, in bytes. The threat: the server at
 * SERVICE_MODEL_BASE_URL decides how much it sends, and its answer was read whole. A completion is
 * bounded by the model's output tokens (32,768 for OpenAI's largest current models,
 * https://platform.openai.com/docs/models), about 128 KiB of text, or 768 KiB if every character
 * is escaped as `\uXXXX`; 2 MiB leaves room for the envelope and servers that pad.
 */
export const MODEL_ANSWER_MAX_BYTES = 2 * 1024 * 1024;

/** The answer could not be read at all: too large, or nested past the bound. Not retried. */
const unreadable = (how: string) =>
  new AppError(
    502,
    'MODEL_BAD_OUTPUT',
    `The model server answered ${how}, so the answer was not read. Check SERVICE_MODEL_BASE_URL points at an OpenAI-compatible server.`,
  );
const tooLarge = () => unreadable(`with more than ${MODEL_ANSWER_MAX_BYTES} bytes (the most read)`);

/**
 * The body as JSON, within the size cap and parsed in slices with the nesting bound
 * (platform/sliced/json.ts); null when it is not JSON. `BodyTooLargeError` and `JsonTooDeepError`
 * go to the caller, which decides what they mean.
 */
async function readJson(res: Response): Promise<{ text: string; json: unknown }> {
  const text = await readCappedText(res, MODEL_ANSWER_MAX_BYTES);
  try {
    return { text, json: text ? await readSliced(parseOutsideJsonSteps(text)) : null };
  } catch (err) {
    if (err instanceof JsonTooDeepError) throw err;
    return { text, json: null };
  }
}

/** `retry-after-ms` (OpenAI's) first, then `retry-after` in seconds or as an HTTP date. */
function retryAfterMs(res: Response, now: number): number | null {
  const ms = Number(res.headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && res.headers.has('retry-after-ms')) return ms;
  const value = res.headers.get('retry-after');
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

async function errorMessage(res: Response): Promise<{ message: string; param: string | null }> {
  let read: { text: string; json: unknown };
  try {
    read = await readJson(res);
  } catch (err) {
    if (err instanceof BodyTooLargeError)
      return { message: `an answer over ${MODEL_ANSWER_MAX_BYTES} bytes, not read`, param: null };
    // Nested too deep, or the connection dropped: described by the status alone.
    return { message: res.statusText, param: null };
  }
  // Not JSON (a proxy page or a plain-text error) leaves `json` null: the text's start says it.
  const body = (read.json ?? {}) as { error?: { message?: string; param?: string | null } | string };
  if (typeof body.error === 'string') return { message: body.error, param: null };
  if (body.error?.message) return { message: body.error.message, param: body.error.param ?? null };
  return { message: read.text.slice(0, 200) || res.statusText, param: null };
}

export function chatTransport(opts: ChatTransportOptions) {
  const url = `${trimTrailingSlashes(opts.baseUrl)}/chat/completions`;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const maxRetries = opts.maxRetries ?? 2;
  const base = opts.retryBaseMs ?? 500;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = opts.random ?? Math.random;
  const doFetch = opts.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a));

  const backoff = (attempt: number) => base * 2 ** attempt * (0.75 + random() * 0.5);

  return async function complete(req: ChatRequest): Promise<ChatAnswer> {
    const body = JSON.stringify({ model: opts.model, ...req });
    let last = '';
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
          },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        // A connection error or our own timeout: the model may be starting or overloaded.
        last =
          (err as Error).name === 'TimeoutError'
            ? `no answer within ${timeoutMs / 1000} s`
            : `cannot reach ${opts.baseUrl} (${(err as Error).message})`;
        if (attempt < maxRetries) {
          await sleep(backoff(attempt));
          continue;
        }
        throw new AppError(
          503,
          'MODEL_UNAVAILABLE',
          `The model server gave no answer: ${last}. Check SERVICE_MODEL_BASE_URL and that the server runs.`,
        );
      }

      if (res.ok) {
        let read: unknown = null;
        try {
          read = (await readJson(res)).json;
        } catch (err) {
          if (err instanceof BodyTooLargeError) throw tooLarge();
          if (err instanceof JsonTooDeepError)
            throw unreadable(`with JSON nested more than ${OUTSIDE_JSON_MAX_DEPTH} levels deep`);
          // The connection dropped mid-answer: an empty answer, as before, which the caller refuses.
        }
        const json = read as {
          choices?: { message?: { content?: string | null; refusal?: string | null } }[];
          usage?: TokenUsage;
        } | null;
        const message = json?.choices?.[0]?.message;
        if (message?.refusal) {
          throw new AppError(502, 'MODEL_REFUSED', `The model refused: ${message.refusal}`);
        }
        return { content: message?.content ?? '', usage: json?.usage ?? null };
      }

      if (res.status === 429 || res.status >= 500) {
        const wait = retryAfterMs(res, Date.now());
        const { message } = await errorMessage(res);
        last = `${res.status} ${message}`;
        if (attempt < maxRetries && (wait === null || wait <= MAX_RETRY_AFTER_MS)) {
          await sleep(wait ?? backoff(attempt));
          continue;
        }
        if (res.status === 429) {
          const seconds = Math.ceil((wait ?? 60_000) / 1000);
          throw new AppError(
            503,
            'MODEL_RATE_LIMITED',
            `The model server is rate limiting requests (${message}). Try again in ${seconds} s.`,
            {
              headers: { 'Retry-After': String(seconds) },
            },
          );
        }
        throw new AppError(503, 'MODEL_UNAVAILABLE', `The model server failed: ${last}.`);
      }

      const { message, param } = await errorMessage(res);
      if (res.status === 401 || res.status === 403) {
        throw new AppError(
          502,
          'MODEL_AUTH_FAILED',
          `The model server refused the key (${res.status}: ${message}). Check SERVICE_MODEL_API_KEY.`,
        );
      }
      if (res.status === 404) {
        throw new AppError(
          502,
          'MODEL_NOT_FOUND',
          `The model server does not know this model or route (${message}). Check SERVICE_MODEL_NAME and SERVICE_MODEL_BASE_URL (it usually ends in /v1).`,
        );
      }
      throw new ModelRequestRefused(res.status, param, message);
    }
  };
}

export type ChatComplete = ReturnType<typeof chatTransport>;
