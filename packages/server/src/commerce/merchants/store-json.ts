import { textNestsDeeper } from '../../platform/http/json-depth.js';

/**
 * How deeply a store's JSON may nest: product JSON-LD, Shopify's product JSON, UCP profiles and
 * answers all fit in a dozen levels. The same bound as request bodies (platform/http/json-depth.ts).
 */
export const STORE_JSON_MAX_DEPTH = 64;

/**
 * JSON.parse for what a store sends, refusing deep nesting before parsing. The threat: V8's
 * JSON.parse does not overflow on deep nesting, but it spends about 4 µs per level, so a
 * 3 MiB product page of `[[[[…]]]]` held the event loop both services share for 6 s, and a 1 MiB
 * UCP answer for 1.5 s; the scan costs a few milliseconds per megabyte. Throws a SyntaxError, as
 * JSON.parse does for text that is not JSON, so callers treat both alike. The scan is the one
 * request bodies use (json-depth.ts).
 */
export function parseStoreJson(text: string): unknown {
  if (textNestsDeeper(text, STORE_JSON_MAX_DEPTH)) {
    throw new SyntaxError(
      `The JSON nests more than ${STORE_JSON_MAX_DEPTH} levels deep; no store's answer needs that many.`,
    );
  }
  return JSON.parse(text);
}
