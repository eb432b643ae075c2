/**
 * `text` without the run of characters at its end that `drop` accepts, found by one backward pass.
 *
 * Why not `text.replace(/\/+$/, '')`: a regular expression with no anchor at its start is tried
 * from every position, and `\/+` runs to the end of a run of slashes each time before `$` fails,
 * so a string of n slashes and one other character costs n² steps. A store's UCP endpoint of
 * 150,000 slashes held the process for 16 s that way (issue 18). `pnpm lint` refuses such
 * expressions (eslint-plugin-regexp, eslint.config.mjs); this is what to use instead.
 */
export function trimEnd(text: string, drop: (char: string) => boolean): string {
  let end = text.length;
  while (end > 0 && drop(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}

/** `https://shop.test/api///` → `https://shop.test/api`. */
export const trimTrailingSlashes = (text: string): string => trimEnd(text, (c) => c === '/');
