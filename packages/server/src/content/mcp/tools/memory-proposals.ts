import { z } from 'zod';
import { inTheApp } from '../../app-pages.js';
import { PROPOSAL_STATUSES } from '../../domain.js';
import { MemoryProposal } from '../../schemas/workspace.js';
import { listMemoryProposals } from '../../services/proposals.js';
import { defineTool, Id, LIST_CAP } from '../tool.js';

export const listMemoryProposalsTool = defineTool({
  name: 'list_memory_proposals',
  title: 'List Brand Memory proposals',
  scope: 'read',
  idempotent: true,
  readsTime: false,
  description: `Lists proposed Brand Memory changes, pending first (up to ${LIST_CAP}). Each proposal adds a do / avoid / style rule and says why, its lift (median engagement with the pattern ÷ without) and the posts behind it. The voice_refresh agent makes them; a person applies or dismisses them in ${inTheApp('memory')}, or with POST /v1/memory-proposals/{id}/apply or /dismiss.`,
  input: z.strictObject({
    status: z.enum(PROPOSAL_STATUSES).optional().describe('pending, applied or dismissed. Default: all.'),
    brandId: Id('The brand, from list_brands. Default: every brand.').optional(),
  }),
  output: {
    memory_proposals: z.array(MemoryProposal),
    counts: z.object({ pending: z.number().int(), applied: z.number().int(), dismissed: z.number().int() }),
    has_more: z.boolean(),
  },
  async run(ctx, args) {
    const page = await listMemoryProposals(
      ctx,
      { status: args.status, brand_id: args.brandId },
      { limit: LIST_CAP },
    );
    const c = page.counts;
    return {
      summary: `${c.pending} pending, ${c.applied} applied, ${c.dismissed} dismissed memory proposals; showing ${page.items.length}.`,
      data: { memory_proposals: page.items, counts: c, has_more: page.has_more },
    };
  },
});
