import { z } from 'zod';
import { getBrandMemory } from '../services/brands.js';
import { requireDraft } from '../services/drafts.js';
import { voiceCheck } from '../services/voice-check.js';
import { defineAgent } from './types.js';

export const voiceCheckAgent = defineAgent({
  id: 'voice_check',
  name: 'Voice check',
  description:
    "Checks a draft's current version for banned words, length against the platform limit, hashtag count, media and an empty hook. Rules only: it makes no model call.",
  inputs: z.strictObject({ draftId: z.string().min(1) }),
  inputDocs: [{ name: 'draftId', type: 'string', required: true, description: 'The draft to check.' }],
  steps: [{ name: 'check', description: 'Run the five checks against Brand Memory and the platform rules.' }],
  makesModelCalls: false,
  brandOf: async (ctx, inputs) => (await requireDraft(ctx, inputs.draftId)).brand_id,
  async run(scope, inputs) {
    return scope.step('check', async (ctx) => {
      const draft = await ctx.stores.drafts.get(inputs.draftId);
      if (!draft) throw new Error('draft vanished');
      const memory = await getBrandMemory(ctx, draft.brand_id);
      const result = voiceCheck(memory, draft.platform, draft.parts);
      const failed = result.checks.filter((c) => c.status === 'fail').map((c) => c.id);
      return {
        detail: result.passed ? 'All checks passed.' : `Failed: ${failed.join(', ')}.`,
        value: { draftId: draft.id, version: draft.current_version, ...result },
      };
    });
  },
});
