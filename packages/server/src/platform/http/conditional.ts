import { createHash } from 'node:crypto';
import { checkpoint, countWork, readSliced, SLICE_UNITS, type Steps } from '../sliced/work.js';

/**
 * Conditional GETs (RFC 9110 13.1.2, If-None-Match) for JSON answers, decided on the bytes we keep
 * (`jsonOf`, sliced/kept-json.ts) so that a 304 never serialises the body and a 200 sends the kept
 * text; express's `res.json` made a new `JSON.stringify` of a 4.5 MB offer for either.
 *
 * The entity tag is strong: a digest of the exact bytes sent, so it changes whenever one byte does
 * and needs no version kept anywhere (a checkout's answer may change without its row changing,
 * when a store reports a hand-off's end). SHA-1 is for telling answers apart, not for security.
 */

/** Above this many characters the digest is made in slices (4.5 MB is 5-20 ms of SHA-1). */
const WHOLE_DIGEST_CHARS = 256 * 1024;

function* digestSteps(text: string): Steps<string> {
  const digest = createHash('sha1');
  for (let at = 0; at < text.length; at += WHOLE_DIGEST_CHARS) {
    digest.update(text.slice(at, at + WHOLE_DIGEST_CHARS));
    // A quarter slice per piece: hashing a character costs far less than reading one.
    countWork(SLICE_UNITS / 4);
    yield* checkpoint();
  }
  return digest.digest('base64url');
}

/** The strong entity tag of an answer's text, `"<27 characters>"`. */
export async function entityTagOf(text: string): Promise<string> {
  const digest =
    text.length <= WHOLE_DIGEST_CHARS
      ? createHash('sha1').update(text).digest('base64url')
      : await readSliced(digestSteps(text));
  return `"${digest}"`;
}

/** An entity tag as RFC 9110 8.8.3 writes it: a quoted string of etagc (no DQUOTE, controls or space). */
const ENTITY_TAG = /^"[\x21\x23-\x7e\x80-\xff]*"$/;
const isOws = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * Whether If-None-Match's condition is false, so a GET or HEAD is answered 304 (RFC 9110 13.1.2):
 * `*` when there is a current representation (there is: this is a 2xx answer), or one listed tag
 * that matches `etag` by weak comparison, the one the RFC prescribes for If-None-Match (`W/"x"`
 * matches `"x"`). An answer without a tag matches only `*`. A list that does not parse matches
 * nothing from the first bad member on, so a malformed header gets the full answer, never a 304.
 * One pass over the header, which node caps at 16 KiB.
 */
export function noneMatchFails(header: string, etag: string | null): boolean {
  if (header.trim() === '*') return true;
  if (etag === null) return false;
  let at = 0;
  for (;;) {
    while (at < header.length && (header[at] === ',' || isOws(header[at]))) at++;
    if (at >= header.length) return false;
    if (header.startsWith('W/', at)) at += 2;
    if (header[at] !== '"') return false;
    const end = header.indexOf('"', at + 1);
    if (end < 0) return false;
    const tag = header.slice(at, end + 1);
    if (!ENTITY_TAG.test(tag)) return false;
    at = end + 1;
    while (isOws(header[at])) at++;
    if (at < header.length && header[at] !== ',') return false;
    if (tag === etag) return true;
  }
}
