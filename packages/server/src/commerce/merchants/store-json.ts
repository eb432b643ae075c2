/**
 * How deeply a store's JSON may nest: product JSON-LD, Shopify's product JSON, UCP profiles and
 * answers all fit in a dozen levels. The same bound as request bodies (platform/http/json-depth.ts).
 */
export const STORE_JSON_MAX_DEPTH = 64;

/**
 * Whether `text` opens more than `limit` arrays or objects inside each other, read as JSON would
 * read it (brackets inside strings do not count), in one pass without recursion.
 */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * JSON.parse for what a store sends, refusing deep nesting before parsing. The threat: V8's
 * JSON.parse does not overflow on deep nesting, but it spends about 4 µs per level, so a
 * 3 MiB product page of `[[[[…]]]]` held the event loop both services share for 6 s, and a 1 MiB
 * UCP answer for 1.5 s; the scan costs a few milliseconds per megabyte. Throws a SyntaxError, as
 * JSON.parse does for text that is not JSON, so callers treat both alike.
 */
export function parseStoreJson(text: string): unknown {
  if (jsonNestsDeeperThan(text, STORE_JSON_MAX_DEPTH)) {
    throw new SyntaxError(
      `The JSON nests more than ${STORE_JSON_MAX_DEPTH} levels deep; no store's answer needs that many.`,
    );
  }
  return JSON.parse(text);
}
