import { z } from 'zod';
import { MediaAsset, VARIANT_NAMES } from '../../media/index.js';
import { Draft } from '../../schemas/drafts.js';
import { attachMedia } from '../../services/drafts.js';
import { defineTool, Id, LIST_CAP, plural } from '../tool.js';

export const listMediaTool = defineTool({
  name: 'list_media',
  title: 'List media',
  scope: 'read',
  idempotent: true,
  description: `Lists a brand's media library, newest first (up to ${LIST_CAP}): images and videos with alt text, tags, focal point and the public URL of each crop (original, square, portrait, landscape, wide). Pass an asset id (med_…) to attach_media.`,
  input: z.strictObject({
    brandId: Id('The brand, from list_brands.'),
    tag: z
      .string()
      .trim()
      .min(1)
      .max(60)
      .optional()
      .describe('Only assets with this tag (case-insensitive).'),
  }),
  output: { media: z.array(MediaAsset), has_more: z.boolean() },
  async run(ctx, args) {
    // The same service instance the REST routes use (it holds the per-asset locks).
    const page = await ctx.media.listAssets(args.brandId, {
      tag: args.tag,
      limit: LIST_CAP,
    });
    return {
      summary: `${plural(page.assets.length, 'media asset')} for brand ${args.brandId}${args.tag ? ` tagged "${args.tag}"` : ''}, newest first.`,
      data: { media: page.assets, has_more: page.has_more },
    };
  },
});

export const attachMediaTool = defineTool({
  name: 'attach_media',
  title: 'Attach media to a draft',
  scope: 'write',
  description:
    "Attaches an image or video from the brand's media library to the first part of a draft and saves it as a new draft version. Images use the platform's preferred crop unless variant is given (X wide, LinkedIn landscape, Instagram portrait, Threads portrait); video goes as uploaded. Attaching the same asset again replaces it.",
  input: z.strictObject({
    draftId: Id('The draft, "drf_…" from draft_idea.'),
    assetId: Id('The media asset, "med_…" from list_media.'),
    variant: z
      .enum(VARIANT_NAMES)
      .optional()
      .describe("original, square, portrait, landscape or wide. Default: the platform's preferred crop."),
  }),
  output: { draft: Draft },
  async run(ctx, args, caller) {
    const draft = await attachMedia(
      ctx,
      args.draftId,
      { asset_id: args.assetId, variant: args.variant },
      caller,
    );
    const media = draft.parts[0]?.media.find((m) => m.asset_id === args.assetId);
    return {
      summary: `Attached ${args.assetId} as ${media?.variant ?? args.variant ?? 'its preferred crop'} to draft ${draft.id}; saved as version ${draft.version}.`,
      data: { draft },
    };
  },
});
