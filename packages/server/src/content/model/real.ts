import { AppError } from '../../platform/errors.js';
import { MAX_PARTS, PLATFORM_LIMITS, type Platform } from '../domain.js';
import { type ChatTransportOptions, chatTransport } from './chat-completions.js';
import { draftPrompt, IdeasAnswer, ideasPrompt, PostAnswer, rewritePrompt } from './prompts/tasks.js';
import { structuredCaller } from './structured.js';
import type { ContentModel } from './types.js';

/**
 * The real model: any server that speaks OpenAI's chat completions (OpenAI, Ollama, vLLM,
 * LM Studio, llama.cpp's server). Its answers are held to the same rules as the simulated
 * model's: ideas must cite a signal we sent, drafts must fit the platform. An answer that
 * breaks them is an error the run records, never quietly trimmed into something else.
 */
export function realModel(opts: ChatTransportOptions): ContentModel {
  const call = structuredCaller(chatTransport(opts));

  const checkPost = (platform: Platform, parts: string[]) => {
    if (parts.length > MAX_PARTS[platform]) {
      throw new AppError(
        502,
        'MODEL_BAD_OUTPUT',
        `The model wrote ${parts.length} parts; ${platform} takes at most ${MAX_PARTS[platform]}.`,
      );
    }
    const long = parts.find((p) => [...p].length > PLATFORM_LIMITS[platform]);
    if (long) {
      throw new AppError(
        502,
        'MODEL_BAD_OUTPUT',
        `The model wrote a part of ${[...long].length} characters; ${platform} allows ${PLATFORM_LIMITS[platform]}.`,
      );
    }
    return parts.map((p) => p.trim());
  };

  return {
    kind: 'real',

    async suggestIdeas(input) {
      if (input.signals.length === 0 || input.count === 0) return [];
      const { value } = await call('ideas', IdeasAnswer, ideasPrompt(input), input.meter);
      const known = new Set(input.signals.map((s) => s.id));
      const taken = new Set(input.existingTitles.map((t) => t.toLowerCase()));
      // Ideas that cite a signal we did not send, or repeat an existing title, are dropped:
      // the service reports the shortfall rather than inventing a citation.
      return value.ideas
        .filter((i) => known.has(i.signal_id) && !taken.has(i.title.toLowerCase()))
        .slice(0, input.count)
        .map((i) => ({ title: i.title, angle: i.angle, notes: i.notes, signalId: i.signal_id }));
    },

    async draft(input) {
      const { value, usage } = await call('post', PostAnswer, draftPrompt(input), input.meter);
      return { parts: checkPost(input.platform, value.parts), usage };
    },

    async rewrite(input) {
      const { value, usage } = await call('post', PostAnswer, rewritePrompt(input), input.meter);
      return { parts: checkPost(input.platform, value.parts), usage };
    },
  };
}
