/**
 * LinkedIn's Posts API stores `commentary` in the "little" text format, where some characters mark
 * mentions and templates. Every reserved character must be backslash-escaped to stay plain text,
 * even where it could not start an element:
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format
 * (the reserved set is listed under "commentary" on the Posts API page:
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api ).
 * Unescaped, "Q&A (part 1)" loses its brackets, and a post with `<` or `{` can be refused.
 */
export const LITTLE_RESERVED = ['|', '{', '}', '@', '[', ']', '(', ')', '<', '>', '#', '\\', '*', '_', '~'];

const RESERVED = /[|{}@[\]()<>#\\*_~]/g;

/** Plain text as little text: hashtags become the HashtagTemplate, everything else reserved is escaped. */
export function toLittleText(text: string): string {
  const out: string[] = [];
  let last = 0;
  // A hashtag is '#' at a word start, then a letter, then letters or digits; it stays a real hashtag.
  // Anything else ('#1', 'C#') is escaped and reads as written.
  for (const m of text.matchAll(/(^|[^\p{L}\p{N}_])#(\p{L}[\p{L}\p{N}]*)/gu)) {
    const start = (m.index ?? 0) + (m[1] as string).length;
    out.push(escapeLittle(text.slice(last, start)), `{hashtag|\\#|${m[2]}}`);
    last = start + 1 + (m[2] as string).length;
  }
  out.push(escapeLittle(text.slice(last)));
  return out.join('');
}

export const escapeLittle = (text: string) => text.replace(RESERVED, (c) => `\\${c}`);

/** Little text back to what a person reads: escapes dropped, hashtag templates as `#tag`. */
export function fromLittleText(little: string): string {
  // One left-to-right pass, so an escaped `\{` never starts a template.
  return little.replace(/\\([|{}@[\]()<>#\\*_~])|\{hashtag\|\\?[#＃]\|([^}]*)\}/g, (_m, escaped, tag) =>
    escaped === undefined ? `#${tag}` : escaped,
  );
}
