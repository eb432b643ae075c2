/** Longest title kept; a longer file name is cut (file names rarely pass 255 bytes anyway). */
export const MAX_TITLE = 200;

/**
 * An asset's title from the name a person knows it by: the uploaded file's name, or the last
 * path segment of the URL it came from. Only the last segment counts (a browser may send a path),
 * control characters go, and a missing name gives '' (the app then falls back to the alt text).
 * 'upload' is what clients send when they have no name, so it is no title either.
 */
export function titleFrom(name: string | null | undefined): string {
  if (!name) return '';
  const last = name.split(/[\\/]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  const clean = last.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (clean === 'upload') return '';
  return [...clean].slice(0, MAX_TITLE).join('');
}

/** The last path segment of a URL, decoded when it can be ('' for `https://host/`). */
export function titleFromUrl(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return '';
  }
  const last = path.split('/').pop() ?? '';
  try {
    return titleFrom(decodeURIComponent(last));
  } catch {
    return titleFrom(last);
  }
}
