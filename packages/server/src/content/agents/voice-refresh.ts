import { z } from 'zod';
import { requireBrand } from '../services/brands.js';
import { proposeMemoryChanges } from '../services/proposals.js';
import { defineAgent } from './types.js';

export const voiceRefreshAgent = defineAgent({
  id: 'voice_refresh',
  name: 'Voice refresh',
  description:
    'Compares winning posts with the rest and proposes Brand Memory changes (do / avoid rules), each with why, its lift and the posts behind it. A person applies or dismisses each proposal.',
  inputs: z.strictObject({ brandId: z.string().min(1), days: z.number().int().min(7).max(180).default(56) }),
  inputDocs: [
    { name: 'brandId', type: 'string', required: true, description: 'The brand.' },
    {
      name: 'days',
      type: 'integer 7-180',
      required: false,
      description: 'How far back to look; default 56.',
    },
  ],
  steps: [
    {
      name: 'compare_and_propose',
      description: 'Lift per pattern; a proposal where it is ≥ 1.2× or ≤ 0.8×.',
    },
  ],
  makesModelCalls: false,
  brandOf: async (ctx, inputs) => (await requireBrand(ctx, inputs.brandId)).id,
  async run(scope, inputs) {
    const result = await scope.step('compare_and_propose', async (ctx) => {
      const r = await proposeMemoryChanges(ctx, inputs.brandId, inputs.days, scope.runId);
      return { detail: `${r.analysed} posts analysed, ${r.proposals.length} proposals.`, value: r };
    });
    return { analysed: result.analysed, proposals: result.proposals.map((p) => p.id) };
  },
});
