import { HASHTAG_LIMITS, MAX_PARTS, PLATFORM_LIMITS, type Platform } from '../domain.js';
import type { VoiceCheckView } from '../schemas/approvals.js';
import type { BrandMemory } from '../schemas/brands.js';
import { bannedWordsIn, charCount, hashtagsOf, sentence } from '../text.js';
import type { StoredPart } from './views.js';

/**
 * The voice check: rules only, no model call, so it is cheap enough to run on every proposal
 * and every edit. A `fail` blocks nothing by itself; it tells the person approving.
 */
export function voiceCheck(memory: BrandMemory, platform: Platform, parts: StoredPart[]): VoiceCheckView {
  const text = parts.map((p) => p.text).join('\n\n');
  const checks: VoiceCheckView['checks'] = [];

  const banned = bannedWordsIn(text, memory.voice.banned_words);
  checks.push(
    banned.length
      ? { id: 'banned_words', status: 'fail', message: sentence(`Uses banned words: ${banned.join(', ')}`) }
      : { id: 'banned_words', status: 'pass', message: 'No banned words.' },
  );

  const limit = PLATFORM_LIMITS[platform];
  const over = parts.map((p, i) => ({ i, n: charCount(p.text) })).filter((p) => p.n > limit);
  checks.push(
    over.length
      ? {
          id: 'length',
          status: 'fail',
          message: over
            .map((o) => `Part ${o.i + 1} has ${o.n} characters; ${platform} allows ${limit}.`)
            .join(' '),
        }
      : parts.length > MAX_PARTS[platform]
        ? {
            id: 'length',
            status: 'fail',
            message: `${parts.length} parts; ${platform} allows ${MAX_PARTS[platform]}.`,
          }
        : { id: 'length', status: 'pass', message: `Within ${limit} characters per part.` },
  );

  const tags = hashtagsOf(text).length;
  const maxTags = HASHTAG_LIMITS[platform];
  checks.push(
    tags > maxTags
      ? {
          id: 'hashtags',
          status: 'warn',
          message: `${tags} hashtags; more than ${maxTags} reads as spam on ${platform}.`,
        }
      : { id: 'hashtags', status: 'pass', message: `${tags} hashtag${tags === 1 ? '' : 's'}.` },
  );

  const media = parts[0]?.media.length ?? 0;
  checks.push(
    platform === 'instagram' && media === 0
      ? { id: 'media', status: 'fail', message: 'Instagram posts need an image or video on the first part.' }
      : {
          id: 'media',
          status: 'pass',
          message: media ? `${media} media attached.` : 'No media; optional here.',
        },
  );

  const hook = (parts[0]?.text ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
  const hookWords = hook
    .replace(/#[\p{L}\p{N}_]+/gu, '')
    .trim()
    .split(/\s+/)
    .filter(Boolean).length;
  checks.push(
    hookWords < 3
      ? {
          id: 'empty_hook',
          status: 'fail',
          message: 'The opening line is empty or too thin to hook a reader.',
        }
      : charCount(hook) > 200
        ? {
            id: 'empty_hook',
            status: 'warn',
            message: 'The opening line runs past 200 characters; lead with something shorter.',
          }
        : { id: 'empty_hook', status: 'pass', message: 'Has an opening hook.' },
  );

  return { passed: checks.every((c) => c.status !== 'fail'), checks };
}
