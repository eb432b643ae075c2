import { z } from 'zod';
import { requireBrand } from '../services/brands.js';
import { buildDigest, saveDigest } from '../services/insights.js';
import { defineAgent } from './types.js';

export const digestAgent = defineAgent({
  id: 'digest',
  name: 'Digest',
  description:
    'Summarises a period (default the last 7 days): headline, stats, wins, misses, patterns and recommendations, each citing the posts and signals behind it. Saves it as the latest digest.',
  inputs: z.strictObject({ brandId: z.string().min(1), days: z.number().int().min(1).max(31).default(7) }),
  inputDocs: [
    { name: 'brandId', type: 'string', required: true, description: 'The brand.' },
    { name: 'days', type: 'integer 1-31', required: false, description: 'Period length; default 7.' },
  ],
  steps: [
    {
      name: 'analyse',
      description: 'Score the period’s posts against the brand median; find patterns and signals.',
    },
    { name: 'save', description: 'Store the digest as the brand’s latest.' },
  ],
  makesModelCalls: false,
  brandOf: async (ctx, inputs) => (await requireBrand(ctx, inputs.brandId)).id,
  async run(scope, inputs) {
    const body = await scope.step('analyse', async (ctx) => {
      const d = await buildDigest(ctx, inputs.brandId, inputs.days);
      return { detail: d.headline, value: d };
    });
    const digest = await scope.step('save', async (ctx) => {
      const saved = await saveDigest(ctx, body, scope.runId);
      return { detail: `Saved ${saved.id}.`, value: saved };
    });
    return { digestId: digest.id, headline: digest.headline };
  },
});
