import { z } from 'zod';
import { AppError } from '../../../platform/errors.js';
import { Conversation, Digest } from '../../schemas/insights.js';
import { getLatestDigest } from '../../services/insights.js';
import { getConversation } from '../../services/themes.js';
import { defineTool, Id, plural } from '../tool.js';

export const getDigestTool = defineTool({
  name: 'get_digest',
  title: 'Get the latest digest',
  scope: 'read',
  idempotent: true,
  description:
    "Returns a brand's latest weekly digest: headline, stats, wins, misses, patterns and recommendations, each citing post ids and signal ids. If none exists yet, run the digest agent (run_agent with agentId 'digest').",
  input: z.strictObject({ brandId: Id('The brand, from list_brands.') }),
  output: { digest: Digest },
  async run(ctx, args) {
    try {
      const digest = await getLatestDigest(ctx, args.brandId);
      return {
        summary: `Digest for ${digest.period_start.slice(0, 10)} to ${digest.period_end.slice(0, 10)}: ${digest.headline} (${plural(digest.wins.length, 'win')}, ${plural(digest.misses.length, 'miss', 'misses')}, ${plural(digest.recommendations.length, 'recommendation')}).`,
        data: { digest },
      };
    } catch (err) {
      // The service's message points at the REST route; an agent needs the tool that makes one.
      if (err instanceof AppError && err.code === 'NOT_FOUND' && err.message.includes('digest'))
        throw new AppError(
          404,
          'NOT_FOUND',
          `Brand '${args.brandId}' has no digest yet. Make one with run_agent { "agentId": "digest", "inputs": { "brandId": "${args.brandId}" } }, then call get_digest again.`,
        );
      throw err;
    }
  },
});

export const getConversationTool = defineTool({
  name: 'get_conversation',
  title: 'Get conversation themes',
  scope: 'read',
  idempotent: true,
  description:
    "Groups the replies to a brand's posts into themes (questions, objections, praise, requests), largest first, each with its count, share, top terms and example replies. Theme ids (theme_…) and reply ids (rpl_…) can be passed to save_to_memory.",
  input: z.strictObject({
    brandId: Id('The brand, from list_brands.'),
    days: z
      .number()
      .int()
      .min(1)
      .max(365)
      .default(30)
      .describe('How many days of replies to look at, 1-365; default 30.'),
  }),
  output: Conversation.shape,
  async run(ctx, args) {
    const view = await getConversation(ctx, args.brandId, args.days);
    const themes = view.themes.map((t) => `${t.theme} ${t.count}`).join(', ');
    return {
      summary: `${plural(view.total_replies, 'reply', 'replies')} in the last ${view.days} days${themes ? `: ${themes}` : ''}.`,
      data: view,
    };
  },
});
