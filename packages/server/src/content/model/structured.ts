import { z } from 'zod';
import { AppError } from '../../platform/errors.js';
import {
  JsonTooDeepError,
  OUTSIDE_JSON_MAX_DEPTH,
  parseOutsideJsonSteps,
} from '../../platform/sliced/json.js';
import { readSliced } from '../../platform/sliced/work.js';
import {
  type ChatComplete,
  type ChatMessage,
  ModelRequestRefused,
  type TokenUsage,
} from './chat-completions.js';
import type { UsageMeter } from './usage-meter.js';

/**
 * Structured outputs over chat completions: ask for `response_format: json_schema` with the
 * zod schema's JSON Schema, validate the answer with the same zod schema, and retry once with
 * the validation problems when it does not fit. Servers that refuse `json_schema` (older
 * Ollama, some proxies) get JSON mode with the schema spelled out in the prompt instead, and
 * the answer is validated just the same.
 */

export interface StructuredResult<T> {
  value: T;
  usage: TokenUsage;
}

const addUsage = (a: TokenUsage, b: TokenUsage | null): TokenUsage =>
  b
    ? {
        prompt_tokens: a.prompt_tokens + b.prompt_tokens,
        completion_tokens: a.completion_tokens + b.completion_tokens,
        total_tokens: a.total_tokens + b.total_tokens,
      }
    : a;

/** A refusal about `response_format` (400 naming it) means the server lacks json_schema. */
const refusesJsonSchema = (err: unknown) =>
  err instanceof ModelRequestRefused &&
  err.status === 400 &&
  (err.param === 'response_format' || /response_format|json_schema/i.test(err.message));

export function structuredCaller(complete: ChatComplete) {
  // Learned once per process: a server that refused json_schema is asked in JSON mode from then on.
  let jsonMode = false;

  return async function call<S extends z.ZodType>(
    name: string,
    schema: S,
    messages: ChatMessage[],
    meter?: UsageMeter,
  ): Promise<StructuredResult<z.output<S>>> {
    const jsonSchema = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Record<
      string,
      unknown
    >;
    delete jsonSchema.$schema;
    let usage: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    let conversation = messages;
    let problem = '';

    for (let attempt = 0; attempt < 2; attempt++) {
      let answer: Awaited<ReturnType<ChatComplete>>;
      try {
        answer = await complete(
          jsonMode
            ? {
                messages: withSchemaInPrompt(conversation, jsonSchema),
                response_format: { type: 'json_object' },
              }
            : {
                messages: conversation,
                response_format: {
                  type: 'json_schema',
                  json_schema: { name, strict: true, schema: jsonSchema },
                },
              },
        );
      } catch (err) {
        if (!jsonMode && refusesJsonSchema(err)) {
          jsonMode = true;
          attempt--;
          continue;
        }
        if (err instanceof ModelRequestRefused) {
          throw new AppError(
            502,
            'MODEL_REQUEST_REFUSED',
            `The model server refused the request (${err.status}: ${err.message}).`,
          );
        }
        throw err;
      }
      usage = addUsage(usage, answer.usage);
      meter?.add(answer.usage);
      const parsed = await parseJson(answer.content);
      const checked = parsed.ok ? schema.safeParse(parsed.value) : null;
      if (checked?.success) return { value: checked.data, usage };
      problem = parsed.ok
        ? (checked?.error.issues ?? [])
            .slice(0, 5)
            .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
            .join('; ')
        : parsed.error;
      // One more try, telling the model exactly what did not fit.
      conversation = [
        ...messages,
        { role: 'assistant', content: answer.content.slice(0, 4000) },
        {
          role: 'user',
          content: `That answer does not fit the required JSON schema (${problem}). Answer again with only the JSON object.`,
        },
      ];
    }
    throw new AppError(
      502,
      'MODEL_BAD_OUTPUT',
      `The model's answer for ${name} did not fit its schema twice: ${problem}.`,
    );
  };
}

/**
 * The answer without the Markdown fence some servers wrap JSON mode answers in. Sliced, not
 * matched: `/^```(?:json)?\s*([\s\S]*?)\s*```$/` lets its three quantifiers trade the same
 * whitespace, which costs polynomial time on a long answer from the model's server.
 */
function unfence(text: string): string {
  const t = text.trim();
  if (t.length < 6 || !t.startsWith('```') || !t.endsWith('```')) return t;
  const inner = t.slice(3, -3);
  return (inner.startsWith('json') ? inner.slice(4) : inner).trim();
}

/**
 * The model's text as JSON: in slices with the nesting bound (platform/sliced/json.ts), since it
 * is up to the answer cap (MODEL_ANSWER_MAX_BYTES) of what the model server chose to send.
 */
async function parseJson(text: string): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  try {
    return { ok: true, value: await readSliced(parseOutsideJsonSteps(unfence(text))) };
  } catch (err) {
    return {
      ok: false,
      error:
        err instanceof JsonTooDeepError
          ? `the answer nests more than ${OUTSIDE_JSON_MAX_DEPTH} levels deep`
          : 'the answer is not JSON',
    };
  }
}

function withSchemaInPrompt(messages: ChatMessage[], schema: Record<string, unknown>): ChatMessage[] {
  const rule = `Answer with one JSON object and nothing else. It must match this JSON Schema:\n${JSON.stringify(schema)}`;
  const [first, ...rest] = messages;
  return first?.role === 'system'
    ? [{ role: 'system', content: `${first.content}\n\n${rule}` }, ...rest]
    : [{ role: 'system', content: rule }, ...messages];
}
