/**
 * Banned words are replaced, not deleted: deleting "synergy" from "Real synergy comes from
 * small habits" leaves "Real comes from small habits". A plain word that means the same takes
 * its place; a banned word with no known replacement removes its whole sentence instead, so
 * what is left still reads.
 */

const PLAIN_WORDS: Record<string, string> = {
  synergy: 'teamwork',
  synergies: 'shared wins',
  leverage: 'use',
  leveraging: 'using',
  utilize: 'use',
  utilise: 'use',
  disrupt: 'change',
  disruptive: 'new',
  revolutionary: 'new',
  'game-changer': 'big step',
  'game changer': 'big step',
  'game-changing': 'useful',
  innovative: 'new',
  seamless: 'smooth',
  seamlessly: 'smoothly',
  robust: 'solid',
  'cutting-edge': 'modern',
  'best-in-class': 'strong',
  'world-class': 'strong',
  amazing: 'great',
  awesome: 'great',
  incredible: 'remarkable',
  hack: 'trick',
  hacks: 'tricks',
  guru: 'expert',
  ninja: 'expert',
  rockstar: 'expert',
  unlock: 'open up',
  empower: 'help',
  empowering: 'helping',
  journey: 'path',
  'deep dive': 'close look',
  simply: '',
  just: '',
  very: '',
  really: '',
  literally: '',
  basically: '',
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const wordRe = (w: string, flags: string) =>
  new RegExp(`(^|[^\\p{L}\\p{N}])(${escapeRe(w)})(?=$|[^\\p{L}\\p{N}])`, flags);

const matchCase = (original: string, replacement: string) =>
  original.charAt(0) === original.charAt(0).toUpperCase() && replacement
    ? replacement.charAt(0).toUpperCase() + replacement.slice(1)
    : replacement;

export function replaceBannedWords(text: string, banned: readonly string[]): string {
  let out = text;
  for (const raw of banned) {
    const word = raw.trim();
    if (!word) continue;
    const plain = PLAIN_WORDS[word.toLowerCase()];
    if (plain !== undefined && !banned.some((b) => b.toLowerCase() === plain.toLowerCase())) {
      out = out.replace(
        wordRe(word, 'giu'),
        (_m, before: string, found: string) => `${before}${matchCase(found, plain)}`,
      );
      continue;
    }
    // No plain word to use: drop each sentence (or line) that carries it.
    out = out
      .split('\n')
      .map((line) =>
        line
          .split(/(?<=[.!?])\s+/)
          .filter((sentence) => !wordRe(word, 'iu').test(sentence))
          .join(' '),
      )
      .join('\n');
  }
  return (
    out
      .replace(/[ \t]{2,}/g, ' ')
      // One space, not ` +`: the line above left no longer run, and ` +` would be retried from every
      // space of a long run (quadratic).
      .replace(/ ([,.!?])/g, '$1')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}
