import { JSONParser, TokenType } from '@streamparser/json';
import { textNestsDeeper } from '../http/json-depth.js';
import { checkpoint, countSlowWork, countWork, makeRoom, type Steps } from './work.js';

/**
 * JSON that comes from outside and that we read: what stores send (product JSON-LD, Shopify's
 * product JSON, UCP profiles and answers) and what social platforms and the model server answer
 * (content/publishers/http.ts, content/model/chat-completions.ts). Both services share this one
 * parser, so both get the same depth bound and the same slicing.
 *
 * How deeply such JSON may nest: every answer we read fits in a dozen levels. The same bound as
 * request bodies (platform/http/json-depth.ts).
 */
export const OUTSIDE_JSON_MAX_DEPTH = 64;

/**
 * JSON refused for its nesting. A SyntaxError, as JSON.parse throws for text that is not JSON, so
 * callers that treat both alike need not know it; a caller that must tell the sender's fault apart
 * (a platform answering 200 with it, content/publishers/http.ts) can.
 */
export class JsonTooDeepError extends SyntaxError {
  override name = 'JsonTooDeepError';
}

const tooDeep = () =>
  new JsonTooDeepError(
    `The JSON nests more than ${OUTSIDE_JSON_MAX_DEPTH} levels deep; no answer we read needs that many.`,
  );

/**
 * JSON.parse for what a store or platform sends, refusing deep nesting before parsing. The threat: V8's
 * JSON.parse does not overflow on deep nesting, but it spends about 4 µs per level, so a
 * 3 MiB product page of `[[[[…]]]]` held the event loop both services share for 6 s, and a 1 MiB
 * UCP answer for 1.5 s; the scan costs a few milliseconds per megabyte. Throws a SyntaxError, as
 * JSON.parse does for text that is not JSON, so callers treat both alike. The scan is the one
 * request bodies use (json-depth.ts).
 */
export function parseOutsideJson(text: string): unknown {
  if (textNestsDeeper(text, OUTSIDE_JSON_MAX_DEPTH)) throw tooDeep();
  return JSON.parse(text);
}

/**
 * Above this many characters, outside JSON is parsed in slices. Below it one `JSON.parse` (and the
 * depth scan) takes well under a millisecond, and a streaming parse would only cost more.
 */
export const WHOLE_PARSE_CHARS = 64 * 1024;

/**
 * Characters given to the streaming parser at a time. It takes about 5 times as long per
 * character as `JSON.parse` (docs/benchmarks.md), and about 4 times as long as a step of the rest
 * of the reader: each character counts once for the linear proof and 4 times towards a slice, so
 * 4,096 characters fill one slice.
 */
export const FEED_CHARS = 4_096;
const SLICE_WEIGHT = 4;

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to replace
const CONTROLS = /[\u0000-\u001f]/g;

/**
 * Control characters (U+0000-U+001F) as spaces. Outside a string the only ones JSON allows are
 * whitespace, which a space is too; inside a string JSON allows none. So valid JSON keeps its value,
 * and text that was invalid only for raw line breaks or tabs in its strings (a product description
 * pasted into a page's JSON-LD as is) becomes valid, in the same one parse.
 */
const controlsAsSpaces = (piece: string) => piece.replace(CONTROLS, ' ');

/**
 * `parseOutsideJson` in slices, for text of up to the store fetch cap (3 MiB) or a platform
 * answer's cap (content/publishers/answer-caps.ts). The threat: one `JSON.parse` of a 3 MiB JSON-LD block, Shopify product JSON or UCP answer held the event loop
 * both services share for 100-190 ms on the loaded machine, and a store decides what it sends.
 * Large text goes through a streaming parser (`@streamparser/json`) a few thousand characters at
 * a time, with a checkpoint after each, so `readSliced` gives the loop a turn between them. The
 * nesting bound is checked on every opened array and object as the tokens come, so a `[[[[…`
 * block fails at its 65th bracket, not after a scan of the whole text. Same value as
 * `JSON.parse` (`__proto__` stays a plain key, the last of duplicate keys wins) and the same
 * failure: a SyntaxError. `controlsAsSpaces` reads raw control characters in strings as spaces
 * (see `controlsAsSpaces`), for JSON that pages write by hand.
 */
export function* parseOutsideJsonSteps(
  text: string,
  opts: { controlsAsSpaces?: boolean } = {},
): Steps<unknown> {
  // Each piece is cleaned as it is parsed, so the cleaning is sliced with the parse.
  const clean = opts.controlsAsSpaces ? controlsAsSpaces : (piece: string) => piece;
  if (text.length <= WHOLE_PARSE_CHARS) {
    yield* makeRoom(text.length);
    countWork(text.length);
    return parseOutsideJson(clean(text));
  }
  const parser = new JSONParser({ paths: ['$'], keepStack: false });
  let depth = 0;
  let value: unknown;
  let parsed = false;
  parser.onToken = ({ token }) => {
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (++depth > OUTSIDE_JSON_MAX_DEPTH) throw tooDeep();
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
  };
  parser.onValue = (info) => {
    value = info.value;
    parsed = true;
  };
  try {
    for (let at = 0; at < text.length; at += FEED_CHARS) {
      parser.write(clean(text.slice(at, at + FEED_CHARS)));
      countSlowWork(Math.min(FEED_CHARS, text.length - at), SLICE_WEIGHT);
      yield* checkpoint();
    }
    if (!parser.isEnded) parser.end();
  } catch (err) {
    if (err instanceof SyntaxError) throw err;
    throw new SyntaxError(`The JSON is not valid: ${(err as Error).message}`);
  }
  if (!parsed) throw new SyntaxError('The text holds no JSON value.');
  return value;
}
