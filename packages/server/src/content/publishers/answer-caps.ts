import type { Platform } from '../domain.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The most we read of one answer from each platform's API, in bytes.
 * The threat: the platform, or anything at a configured SERVICE_<P>_API_URL, decides how much it
 * sends, and an answer was read whole into memory. Each cap sits several times above the largest
 * answer the calls we make can get, from the platforms' documented maximums; JSON escapes every
 * non-ASCII character as `\uXXXX` (Meta does by default), so text counts at up to 12 bytes a
 * character (an emoji is two escapes).
 *
 * - X, 1 MiB: the largest is a recent search for replies, `max_results=100` (the maximum,
 *   https://docs.x.com/x-api/posts/search/api-reference/get-tweets-search-recent) with each post's
 *   text (280 weighted characters, https://docs.x.com/fundamentals/counting-characters), id, date
 *   and author expanded: about 100 × 4 KiB at worst. Every other answer is one post or one user.
 * - LinkedIn, 256 KiB: every answer is one entity: a post (commentary of at most 3,000 characters,
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api),
 *   an upload's URL, the member's userinfo, analytics counts.
 * - Instagram, 1 MiB: the largest is a page of comments (25 by default,
 *   https://developers.facebook.com/docs/graph-api/results) of up to 2,200 characters each
 *   (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media),
 *   about 25 × 26 KiB escaped.
 * - Threads, 256 KiB: a page of replies (25 by default) of up to 500 characters each
 *   (https://developers.facebook.com/docs/threads/overview), about 25 × 6 KiB escaped.
 */
export const ANSWER_MAX_BYTES: Record<Platform, number> = {
  x: 1 * MiB,
  linkedin: 256 * KiB,
  instagram: 1 * MiB,
  threads: 256 * KiB,
};

/**
 * The most we read of a token endpoint's answer (code exchange, refresh, Meta's long-lived
 * exchange), on every platform. A token answer is a handful of fields (RFC 6749 §5.1: the tokens,
 * `expires_in`, `scope`; Meta adds `permissions`, LinkedIn `refresh_token_expires_in`), a few hundred
 * bytes to a few KiB with an OpenID `id_token`. Sharing the platform's cap let a token endpoint
 * send 1 MiB, which is also parsed in slices, for an answer of kilobytes; 64 KiB is ten times the
 * largest and stays one whole parse (platform/sliced/json.ts, WHOLE_PARSE_CHARS).
 */
export const TOKEN_ANSWER_MAX_BYTES = 64 * KiB;
