/**
 * Escapes `\`, `%` and `_` for a `LIKE ? ESCAPE '\'` pattern, so outside text (and ids, whose
 * `_` is LIKE's one-character wildcard) matches only itself on both engines.
 */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
