import { HASHTAG_LIMITS, MAX_PARTS, PLATFORM_LIMITS, type Platform } from '../../domain.js';
import type { VoiceInput } from '../types.js';

/**
 * The part of every prompt that says who is writing: the brand's Brand Memory, as a brief a
 * copywriter would get. Empty sections are left out rather than sent as "none".
 */

const section = (title: string, lines: string[]) =>
  lines.length ? `${title}:\n${lines.map((l) => `- ${l}`).join('\n')}` : '';

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function brandBrief(voice: VoiceInput): string {
  return [
    `You write social media posts for the brand "${voice.brandName}".`,
    voice.summary ? `Voice: ${voice.summary}` : '',
    section('Always', voice.do),
    section('Never', voice.avoid),
    voice.bannedWords.length
      ? `Banned words (never use them, not even inside other words; choose another word instead): ${voice.bannedWords.join(', ')}`
      : '',
    section('Style rules (follow them; do not quote them)', voice.styleRules),
    section('Audiences', voice.audiences),
    section('Products', voice.products),
    section(
      'What the brand knows (use facts from here; never invent numbers)',
      (voice.knowledge ?? []).slice(0, 12).map((k) => `${k.title}: ${clip(k.body, 400)}`),
    ),
    section(
      'Posts the brand is proud of (match their tone, do not copy them)',
      voice.examplePosts.slice(0, 5).map((p) => clip(p.replace(/\s+/g, ' '), 500)),
    ),
  ]
    .filter(Boolean)
    .join('\n\n');
}

const PLATFORM_NAMES: Record<Platform, string> = {
  x: 'X (Twitter)',
  linkedin: 'LinkedIn',
  instagram: 'Instagram (the caption)',
  threads: 'Threads',
};

/** The platform's hard limits, stated as rules the model must keep. */
export function platformRules(platform: Platform): string {
  const parts = MAX_PARTS[platform];
  return [
    `Platform: ${PLATFORM_NAMES[platform]}.`,
    `Each part is at most ${PLATFORM_LIMITS[platform]} characters, hashtags included.`,
    parts > 1
      ? `Use 1 part for a single post, or up to ${parts} parts for a thread when the idea needs steps; each part must stand on its own and the first part is the hook.`
      : 'Write exactly 1 part.',
    `Use at most ${HASHTAG_LIMITS[platform]} hashtags, at the end.`,
    'Write the post itself: no notes to the editor, no labels such as "Hook:", no quotation marks around the post.',
  ].join('\n');
}
