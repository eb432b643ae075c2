import { z } from 'zod';
import { IDEA_STATUSES, PLATFORMS } from '../../domain.js';
import { Draft } from '../../schemas/drafts.js';
import { GeneratedIdeas, Idea } from '../../schemas/ideas.js';
import { generateDrafts } from '../../services/drafts.js';
import { createIdea, generateIdeas, listIdeas } from '../../services/ideas.js';
import { sentence } from '../../text.js';
import { defineTool, Id, LIST_CAP, plural } from '../tool.js';

const brandId = Id('The brand, from list_brands.');

export const listIdeasTool = defineTool({
  name: 'list_ideas',
  title: 'List ideas',
  scope: 'read',
  idempotent: true,
  readsTime: false,
  description: `Lists a brand's ideas, most recently updated first (up to ${LIST_CAP}), each with title, angle, notes, status and the signal it was suggested from. Statuses in pipeline order: idea, drafting, approved, scheduled, live.`,
  input: z.strictObject({
    brandId,
    status: z.enum(IDEA_STATUSES).optional().describe('Only ideas in this column. Default: all.'),
  }),
  output: { ideas: z.array(Idea), has_more: z.boolean() },
  async run(ctx, args) {
    const page = await listIdeas(ctx, { brand_id: args.brandId, status: args.status }, { limit: LIST_CAP });
    return {
      summary: `${plural(page.items.length, args.status ? `${args.status} idea` : 'idea')} of brand ${args.brandId}, most recently updated first${page.has_more ? `; only the first ${LIST_CAP} shown, filter by status to see others` : ''}.`,
      data: { ideas: page.items, has_more: page.has_more },
    };
  },
});

export const createIdeaTool = defineTool({
  name: 'create_idea',
  title: 'Create an idea',
  scope: 'write',
  description:
    "Adds an idea to the brand's Idea column. Nothing is drafted or posted; use draft_idea next to write per-platform drafts.",
  input: z.strictObject({
    brandId,
    title: z.string().trim().min(1).max(200).describe('The idea in a line, 1-200 characters.'),
    angle: z.string().trim().min(1).max(500).optional().describe('The take or hook, 1-500 characters.'),
    notes: z
      .string()
      .trim()
      .min(1)
      .max(5000)
      .optional()
      .describe('Anything a draft should use, 1-5,000 characters.'),
  }),
  output: { idea: Idea },
  async run(ctx, args, caller) {
    const idea = await createIdea(
      ctx,
      { brand_id: args.brandId, title: args.title, angle: args.angle, notes: args.notes },
      caller,
    );
    return { summary: `Created idea ${idea.id} "${idea.title}" in the Idea column.`, data: { idea } };
  },
});

export const suggestIdeasTool = defineTool({
  name: 'suggest_ideas',
  title: 'Suggest ideas from signals',
  scope: 'write',
  description:
    "Suggests new ideas from the brand's strongest signals of the last 30 days (trends, questions, competitors, mentions, news) and adds them to the Idea column. Each idea cites the signal it came from. If fewer than count could be made, shortfall says how many fewer and why (the same object as POST /v1/ideas/generate); if none could be made, the call fails with NO_SIGNALS or SIGNALS_EXHAUSTED.",
  input: z.strictObject({
    brandId,
    count: z.number().int().min(1).max(10).default(3).describe('How many ideas, 1-10; default 3.'),
  }),
  output: GeneratedIdeas.shape,
  async run(ctx, args, caller) {
    const result = await generateIdeas(ctx, { brand_id: args.brandId, count: args.count }, caller);
    const list = result.ideas.map(
      (i) => `${i.id} "${i.title}" (from signal ${i.signal?.id ?? 'none'}: ${i.signal?.title ?? '-'})`,
    );
    const short = result.shortfall
      ? ` Shortfall ${result.shortfall.reason}, ${result.shortfall.count} fewer than the ${result.requested} asked for: ${result.shortfall.message}`
      : '';
    return {
      summary: sentence(`Suggested ${plural(result.ideas.length, 'idea')}: ${list.join('; ')}`) + short,
      data: result,
    };
  },
});

export const draftIdeaTool = defineTool({
  name: 'draft_idea',
  title: 'Draft an idea',
  scope: 'write',
  description:
    "Writes a draft of an idea for each platform named, in the brand's voice and within the platform's limit (X 280, LinkedIn 3,000, Instagram 2,200, Threads 500 characters per part). A platform that already has a draft for the idea gets a new version of it; earlier versions stay. Returns the drafts (drf_…), ready for propose_post.",
  input: z.strictObject({
    ideaId: Id('The idea, "idea_…" from list_ideas, create_idea or suggest_ideas.'),
    platforms: z
      .array(z.enum(PLATFORMS))
      .min(1)
      .max(4)
      .describe('One or more of x, linkedin, instagram, threads.'),
  }),
  output: { drafts: z.array(Draft) },
  async run(ctx, args, caller) {
    const drafts = await generateDrafts(ctx, { idea_id: args.ideaId, platforms: args.platforms }, caller);
    const list = drafts.map((d) => `${d.platform} ${d.id} v${d.version}${d.fits ? '' : ' (over the limit)'}`);
    return { summary: `Drafted idea ${args.ideaId}: ${list.join(', ')}.`, data: { drafts } };
  },
});
