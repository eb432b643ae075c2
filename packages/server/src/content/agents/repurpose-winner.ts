import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { PLATFORMS, type Platform } from '../domain.js';
import { draftFromSource } from '../services/drafts.js';
import { conflict } from '../services/errors.js';
import { getPost, requirePost } from '../services/posts.js';
import { defineAgent } from './types.js';

/** Why a post is not one to repurpose, or null: it must be published and outperforming. */
function notAWinner(p: { id: string; status: string; verdict: string }) {
  if (p.status === 'published' && p.verdict === 'outperforming') return null;
  return {
    code: 'NOT_A_WINNER',
    message: `Post '${p.id}' is ${p.status === 'published' ? `'${p.verdict}'` : p.status}; repurpose_winner takes a published post that is outperforming.`,
  };
}

/** The brand's other connected platforms, or every other platform when none is connected. */
async function otherPlatforms(ctx: ContentContext, postId: string): Promise<Platform[]> {
  const post = await requirePost(ctx.stores, postId);
  const connected = (await ctx.stores.channels.connectedOf(post.brand_id)).map((c) => c.platform);
  const others = PLATFORMS.filter((p) => p !== post.platform);
  const linked = others.filter((p) => connected.includes(p));
  return linked.length ? linked : others;
}

export const repurposeWinnerAgent = defineAgent({
  id: 'repurpose_winner',
  name: 'Repurpose a winner',
  description:
    'Takes a published post that outperformed the brand median and drafts it for the other platforms, with a voice check on each draft. It only drafts; nothing is proposed or published.',
  inputs: z.strictObject({
    postId: z.string().min(1),
    platforms: z.array(z.enum(PLATFORMS)).min(1).max(4).optional(),
  }),
  inputDocs: [
    {
      name: 'postId',
      type: 'string',
      required: true,
      description: 'A published post with verdict outperforming.',
    },
    {
      name: 'platforms',
      type: 'array of x | linkedin | instagram | threads',
      required: false,
      description: "Defaults to the brand's other connected platforms (all others if none).",
    },
  ],
  steps: [
    { name: 'check_winner', description: 'The post is published and outperforming.' },
    { name: 'draft', description: 'A draft per other platform, written from the post.' },
    { name: 'voice_check', description: 'A voice_check child run per draft.' },
  ],
  makesModelCalls: true,
  brandOf: async (ctx, inputs) => (await requirePost(ctx.stores, inputs.postId)).brand_id,
  withDefaults: async (ctx, inputs) => ({
    ...inputs,
    platforms: inputs.platforms ?? (await otherPlatforms(ctx, inputs.postId)),
  }),
  nothingToDo: async (ctx, inputs) => notAWinner(await getPost(ctx, inputs.postId)),
  async run(scope, inputs) {
    const { ctx } = scope;
    const post = await scope.step('check_winner', async (ctx) => {
      const p = await getPost(ctx, inputs.postId);
      const problem = notAWinner(p);
      if (problem) throw conflict(problem.code, problem.message);
      return { detail: `${p.platform} post at ${p.outcome.ratio ?? '?'}× the median.`, value: p };
    });
    const targets = (inputs.platforms ?? (await otherPlatforms(ctx, post.id))).filter(
      (p) => p !== post.platform,
    );
    const row = await requirePost(ctx.stores, post.id);
    const text = row.parts.map((p) => p.text).join('\n\n');
    const drafts = await scope.step('draft', async (ctx) => {
      const made = [];
      for (const platform of targets)
        made.push(
          await draftFromSource(
            ctx,
            {
              brandId: post.brand_id,
              ideaId: post.idea_id,
              platform,
              title: text.split('\n')[0] ?? 'Repurposed post',
              sourceText: text,
            },
            scope.caller,
          ),
        );
      return {
        detail: `Drafted for ${targets.join(', ') || 'no platforms'}.`,
        value: made.map((d) => ({ id: d.id, platform: d.platform })),
      };
    });
    await scope.step('voice_check', async () => {
      const runs = [];
      for (const d of drafts) runs.push((await scope.child('voice_check', { draftId: d.id })).id);
      return { detail: `${runs.length} voice checks.`, value: runs };
    });
    return { postId: post.id, drafts: drafts.map((d) => d.id) };
  },
});
