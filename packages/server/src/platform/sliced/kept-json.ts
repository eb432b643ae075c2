import { JsonTooDeepError, parseOutsideJsonSteps, WHOLE_PARSE_CHARS } from './json.js';
import { stringifySteps } from './stringify.js';
import { readSliced } from './work.js';

/**
 * The JSON text of a value, made once and kept with it, so that the answer (`send` in
 * http/mount.ts), its stored row and its idempotency record (`toJson` in db/json.ts) all write the
 * same string instead of each making it again. The threat it closes: an offer of a 3 MiB page is
 * about 4.5 MB of JSON, and each `JSON.stringify` of it held the shared event loop 80-280 ms on the
 * loaded machine; the old path made three, and a GET or replay first decoded it whole.
 *
 * A value given here must not change afterwards (its text would go stale): it is what a service
 * has finished making (an offer) or what was just read back from its stored text.
 */
const texts = new WeakMap<object, string>();

/** The text kept for `value`, if any. */
export const keptJsonText = (value: unknown): string | undefined =>
  typeof value === 'object' && value !== null ? texts.get(value) : undefined;

/** `value` with its JSON (`JSON.stringify(value)`, byte for byte) written in slices and kept. */
export async function withSlicedJson<T extends object>(value: T): Promise<{ value: T; json: string }> {
  const json = (await readSliced(stringifySteps(value))) as string;
  texts.set(value, json);
  return { value, json };
}

/**
 * Our own stored JSON read back (a stored offer, a kept answer), in slices when it is large, with
 * its text kept so the answer is that text, not a new serialisation. Text we wrote ourselves, so
 * nesting past the outside-JSON bound (which no answer of ours reaches) falls back to JSON.parse
 * rather than failing a replay.
 */
export async function readKeptJson<T>(text: string): Promise<T> {
  let value: unknown;
  if (text.length <= WHOLE_PARSE_CHARS) value = JSON.parse(text);
  else {
    try {
      value = await readSliced(parseOutsideJsonSteps(text));
    } catch (err) {
      if (!(err instanceof JsonTooDeepError)) throw err;
      value = JSON.parse(text);
    }
  }
  if (typeof value === 'object' && value !== null) texts.set(value, text);
  return value as T;
}
