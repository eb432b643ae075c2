import { z } from 'zod';
import { DAY } from '../../platform/clock.js';
import { PLATFORMS } from '../domain.js';
import type { GeneratedIdeasView } from '../schemas/ideas.js';
import { proposePost } from '../services/approvals.js';
import { nextFreeSlot } from '../services/best-times.js';
import { requireBrand } from '../services/brands.js';
import { generateDrafts } from '../services/drafts.js';
import { conflict } from '../services/errors.js';
import { generateIdeas, nothingToPlanFrom } from '../services/ideas.js';
import { engagementsOf } from '../services/metrics.js';
import { plural } from '../text.js';
import { defineAgent } from './types.js';

export const weeklyPlanAgent = defineAgent({
  id: 'weekly_plan',
  name: 'Weekly plan',
  description:
    'Reads last week, finds open best-time slots, suggests ideas from signals, drafts them per platform, runs the voice check on each draft and queues them as pending approvals. It never publishes: a person approves.',
  inputs: z.strictObject({
    brandId: z.string().min(1),
    platforms: z.array(z.enum(PLATFORMS)).min(1).max(4).optional(),
    count: z.number().int().min(1).max(7).default(3),
  }),
  inputDocs: [
    { name: 'brandId', type: 'string', required: true, description: 'The brand to plan for.' },
    {
      name: 'platforms',
      type: 'array of x | linkedin | instagram | threads',
      required: false,
      description: 'Defaults to every platform with a connected channel.',
    },
    { name: 'count', type: 'integer 1-7', required: false, description: 'Ideas to plan; default 3.' },
  ],
  steps: [
    { name: 'read_last_week', description: 'Posts, engagements and the top post of the last 7 days.' },
    { name: 'find_open_slots', description: 'The next free best-time slots on each channel.' },
    {
      name: 'suggest_ideas',
      description: 'Ideas from the strongest recent signals, each citing its signal.',
    },
    { name: 'draft', description: 'A draft per idea per platform.' },
    { name: 'voice_check', description: 'A voice_check child run per draft.' },
    { name: 'queue_approvals', description: 'A pending approval per draft, in the next free slot.' },
  ],
  makesModelCalls: true,
  brandOf: async (ctx, inputs) => (await requireBrand(ctx, inputs.brandId)).id,
  withDefaults: async (ctx, inputs) => {
    if (inputs.platforms) return inputs;
    const connected = new Set((await ctx.stores.channels.connectedOf(inputs.brandId)).map((c) => c.platform));
    return { ...inputs, platforms: PLATFORMS.filter((p) => connected.has(p)) };
  },
  nothingToDo: (ctx, inputs) => nothingToPlanFrom(ctx, inputs.brandId),
  async run(scope, inputs) {
    const { ctx } = scope;
    const brandId = inputs.brandId;
    const wanted = inputs.platforms ?? PLATFORMS;
    const channels = (await ctx.stores.channels.connectedOf(brandId)).filter((c) =>
      wanted.includes(c.platform),
    );
    if (channels.length === 0)
      throw conflict(
        'NO_CHANNEL',
        inputs.platforms?.length
          ? `Brand '${brandId}' has no connected channel for ${inputs.platforms.join(', ')}.`
          : `Brand '${brandId}' has no connected channel. Connect one with POST /v1/brands/${brandId}/channels/connect.`,
      );

    await scope.step('read_last_week', async (ctx) => {
      const now = ctx.clock.now().getTime();
      const posts = await ctx.stores.posts.publishedBetween(
        brandId,
        new Date(now - 7 * DAY).toISOString(),
        new Date(now).toISOString(),
      );
      const snaps = await ctx.stores.posts.snapshotsOf(posts.map((p) => p.id));
      const latest = new Map<string, number>();
      for (const s of snaps) latest.set(s.post_id, engagementsOf(s));
      const total = [...latest.values()].reduce((a, b) => a + b, 0);
      return {
        detail: `${posts.length} posts last week, ${total} engagements.`,
        value: { posts: posts.length, engagements: total },
      };
    });

    const slots = await scope.step('find_open_slots', async (ctx) => {
      const found: { platform: string; channelId: string; at: string }[] = [];
      for (const ch of channels) {
        const s = await nextFreeSlot(ctx, { brandId, channelId: ch.id, platform: ch.platform });
        if (s) found.push({ platform: ch.platform, channelId: ch.id, at: s.at });
      }
      return {
        detail: found.map((f) => `${f.platform} ${f.at}`).join('; ') || 'No free slots.',
        value: found,
      };
    });

    const ideas = await scope.step('suggest_ideas', async (ctx) => {
      let made: GeneratedIdeasView | null = null;
      let failure: unknown = null;
      try {
        made = await generateIdeas(ctx, { brand_id: brandId, count: inputs.count }, scope.caller);
      } catch (err) {
        failure = err;
      }
      if (made) {
        return {
          detail: `${plural(made.ideas.length, 'idea')} from signals.${made.shortfall ? ` ${made.shortfall.message}` : ''}`,
          value: made.ideas.map((i) => ({ id: i.id, title: i.title })),
        };
      }
      // No fresh signals (none at all, or all already turned into ideas): plan from ideas
      // already waiting in the Idea column instead.
      const waiting = await ctx.stores.ideas.list({ brandId, status: 'idea' }, inputs.count);
      if (waiting.items.length === 0 && failure) throw failure;
      return {
        detail:
          waiting.items.length === 0
            ? 'No fresh signals and no ideas waiting in the Idea column: nothing to plan this week.'
            : `No fresh signals; using ${waiting.items.length} waiting ideas.`,
        value: waiting.items.map((i) => ({ id: i.id, title: i.title })),
      };
    });

    const platforms = [...new Set(channels.map((c) => c.platform))];
    const drafts = await scope.step('draft', async (ctx) => {
      const out: { id: string; platform: string; ideaId: string }[] = [];
      for (const idea of ideas) {
        const made = await generateDrafts(ctx, { idea_id: idea.id, platforms }, scope.caller);
        out.push(...made.map((d) => ({ id: d.id, platform: d.platform, ideaId: idea.id })));
      }
      return { detail: `${out.length} drafts across ${platforms.join(', ')}.`, value: out };
    });

    const checks = await scope.step('voice_check', async () => {
      const results: { draftId: string; runId: string; passed: boolean }[] = [];
      for (const d of drafts) {
        const child = await scope.child('voice_check', { draftId: d.id });
        const passed = (child.output as { passed?: boolean } | null)?.passed ?? false;
        results.push({ draftId: d.id, runId: child.id, passed });
      }
      return {
        detail: `${results.filter((r) => r.passed).length}/${results.length} drafts passed.`,
        value: results,
      };
    });

    const approvals = await scope.step('queue_approvals', async (ctx) => {
      const queued: string[] = [];
      for (const d of drafts) {
        const idea = ideas.find((i) => i.id === d.ideaId);
        const check = checks.find((c) => c.draftId === d.id);
        const approval = await proposePost(
          ctx,
          {
            draft_id: d.id,
            reason: `Weekly plan: "${idea?.title ?? d.ideaId}" in a best-time slot${check?.passed ? '' : ' (voice check flagged issues)'}.`,
          },
          scope.caller,
          { runId: scope.runId },
        );
        queued.push(approval.id);
      }
      return { detail: `${queued.length} approvals queued for a person to review.`, value: queued };
    });

    return { ideas: ideas.map((i) => i.id), drafts: drafts.map((d) => d.id), approvals, slots };
  },
});
