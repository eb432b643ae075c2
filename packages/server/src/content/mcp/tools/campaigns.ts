import { z } from 'zod';
import { Campaign, CanvasItem } from '../../schemas/campaigns.js';
import { addCanvasNote, listCampaigns } from '../../services/campaigns.js';
import { defineTool, Id, LIST_CAP, plural } from '../tool.js';

export const listCampaignsTool = defineTool({
  name: 'list_campaigns',
  title: 'List campaigns',
  scope: 'read',
  idempotent: true,
  readsTime: false,
  description: `Lists campaigns, newest first (up to ${LIST_CAP}), with name, goal and dates. Each campaign has a canvas of sticky notes; add one with add_canvas_note.`,
  input: z.strictObject({
    brandId: Id('The brand, from list_brands. Default: every brand.').optional(),
  }),
  output: { campaigns: z.array(Campaign), has_more: z.boolean() },
  async run(ctx, args) {
    const page = await listCampaigns(ctx, { brand_id: args.brandId }, { limit: LIST_CAP });
    const names = page.items.map((c) => `${c.name} (${c.id})`);
    return {
      summary: `${plural(page.items.length, 'campaign')}${names.length ? `: ${names.join('; ')}` : ''}.`,
      data: { campaigns: page.items, has_more: page.has_more },
    };
  },
});

export const addCanvasNoteTool = defineTool({
  name: 'add_canvas_note',
  title: 'Add a canvas note',
  scope: 'write',
  description:
    "Puts a yellow sticky note with the text on a campaign's canvas, to the right of everything already on it, so it never covers anything. Returns the note with its position.",
  input: z.strictObject({
    campaignId: Id('The campaign, "cmp_…" from list_campaigns.'),
    text: z.string().trim().min(1).max(2000).describe('The note, 1-2,000 characters.'),
  }),
  output: { note: CanvasItem },
  async run(ctx, args) {
    const note = await addCanvasNote(ctx, args.campaignId, { text: args.text });
    return {
      summary: `Added note ${note.id} to campaign ${args.campaignId} at x=${note.x}, y=${note.y}.`,
      data: { note },
    };
  },
});
