import { z } from 'zod';
import type { Platform } from '../../domain.js';
import type { ChatMessage } from '../chat-completions.js';
import type { SignalInput, VoiceInput } from '../types.js';
import { brandBrief, platformRules } from './brand-brief.js';

/**
 * The three things svc asks a model for, each as messages plus the zod schema of the answer.
 * Schemas use only required fields and closed objects, so they are valid strict
 * `json_schema` response formats.
 */

export const IdeasAnswer = z.strictObject({
  ideas: z.array(
    z.strictObject({
      title: z.string().min(1).max(200),
      angle: z.string().max(300),
      notes: z.string().max(2000),
      signal_id: z.string(),
    }),
  ),
});

export const PostAnswer = z.strictObject({
  parts: z.array(z.string().min(1)).min(1),
});

export function ideasPrompt(input: {
  voice: VoiceInput;
  signals: SignalInput[];
  count: number;
  existingTitles: string[];
}): ChatMessage[] {
  return [
    { role: 'system', content: brandBrief(input.voice) },
    {
      role: 'user',
      content: [
        `Suggest ${input.count} post ideas for the brand, each built on one of these signals. Cite the signal by its id in signal_id.`,
        'Each idea has a short title (what the post is about), an angle (how it approaches it, for whom) and notes for the writer (facts to use, the point to make). Notes are for the team, not for the audience.',
        input.existingTitles.length
          ? `Do not repeat these existing ideas:\n${input.existingTitles
              .slice(0, 50)
              .map((t) => `- ${t}`)
              .join('\n')}`
          : '',
        `Signals:\n${input.signals
          .map((s) => `- id ${s.id} (${s.kind}): ${s.title}${s.summary ? ` — ${s.summary}` : ''}`)
          .join('\n')}`,
      ]
        .filter(Boolean)
        .join('\n\n'),
    },
  ];
}

export function draftPrompt(input: {
  voice: VoiceInput;
  platform: Platform;
  idea: { title: string; angle: string | null; notes: string | null };
  sourceText?: string;
}): ChatMessage[] {
  const { idea } = input;
  return [
    { role: 'system', content: `${brandBrief(input.voice)}\n\n${platformRules(input.platform)}` },
    {
      role: 'user',
      content: [
        input.sourceText
          ? `Rewrite this published post for the platform above, keeping what made it work:\n${input.sourceText}`
          : `Write a post about: ${idea.title}`,
        idea.angle ? `Angle: ${idea.angle}` : '',
        idea.notes ? `Writer's notes (use the facts; do not paste the notes): ${idea.notes}` : '',
        'Answer with the post as "parts".',
      ]
        .filter(Boolean)
        .join('\n'),
    },
  ];
}

export function rewritePrompt(input: {
  voice: VoiceInput;
  platform: Platform;
  parts: string[];
  instruction: string;
}): ChatMessage[] {
  return [
    { role: 'system', content: `${brandBrief(input.voice)}\n\n${platformRules(input.platform)}` },
    {
      role: 'user',
      content: `Rewrite this post. Instruction: ${input.instruction}\n\nThe post, one part per paragraph block:\n${input.parts
        .map((p, i) => `[part ${i + 1}]\n${p}`)
        .join('\n\n')}\n\nAnswer with the rewritten post as "parts".`,
    },
  ];
}
