import { z } from 'zod';
import { PAGE, PLATFORMS, POST_STATUSES } from '../../domain.js';
import { BestTimes } from '../../schemas/insights.js';
import { Post, PostDetail } from '../../schemas/posts.js';
import { bestTimes } from '../../services/best-times.js';
import { getPost, listPosts } from '../../services/posts.js';
import { defineTool, Id, plural } from '../tool.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export const listPostsTool = defineTool({
  name: 'list_posts',
  title: 'List posts',
  scope: 'read',
  idempotent: true,
  readsTime: false,
  description:
    "Lists a brand's posts, newest first, each with its text, platform, status, permalink, latest metrics and verdict against the brand's median (outperforming, on_par, underperforming, too_early, not_enough_data). Use get_post for one post's growth curve.",
  input: z.strictObject({
    brandId: Id('The brand, from list_brands.'),
    status: z
      .enum(POST_STATUSES)
      .optional()
      .describe('Only posts in this state: scheduled, published or failed. Default: all.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(PAGE.maxLimit)
      .default(PAGE.defaultLimit)
      .describe(`How many posts, 1-${PAGE.maxLimit}; default ${PAGE.defaultLimit}.`),
  }),
  output: { posts: z.array(Post), has_more: z.boolean() },
  async run(ctx, args) {
    const page = await listPosts(ctx, { brand_id: args.brandId, status: args.status }, { limit: args.limit });
    const verdicts = new Map<string, number>();
    for (const p of page.items) verdicts.set(p.verdict, (verdicts.get(p.verdict) ?? 0) + 1);
    const tally = [...verdicts].map(([v, n]) => `${n} ${v}`).join(', ');
    return {
      summary: `${plural(page.items.length, args.status ? `${args.status} post` : 'post')} of brand ${args.brandId}, newest first${tally ? ` (${tally})` : ''}${page.has_more ? '; more exist, raise limit to see them' : ''}.`,
      data: { posts: page.items, has_more: page.has_more },
    };
  },
});

export const getPostTool = defineTool({
  name: 'get_post',
  title: 'Get a post',
  scope: 'read',
  idempotent: true,
  readsTime: false,
  description:
    "Returns one post with its outcome (verdict and ratio against the brand's median at the same age), its growth curve (every metrics snapshot, oldest first) and the brand's baseline curve on the same platform.",
  input: z.strictObject({ postId: Id('The post, "post_…" from list_posts.') }),
  output: { post: PostDetail },
  async run(ctx, args) {
    const post = await getPost(ctx, args.postId);
    const ratio = post.outcome.ratio === null ? '' : ` at ${post.outcome.ratio.toFixed(2)}× the median`;
    return {
      summary: `Post ${post.id} on ${post.platform} is ${post.status}; verdict ${post.outcome.verdict}${ratio}; ${plural(post.growth.length, 'snapshot')}.`,
      data: { post },
    };
  },
});

export const bestTimesTool = defineTool({
  name: 'best_times',
  title: 'Best times to post',
  scope: 'read',
  idempotent: true,
  description:
    "Returns the best posting slots for one platform or for all of the brand's connected platforms: weekday (0 = Sunday), hour 0-23 in the server's local time zone, score 0..1, computed from the brand's own history (platform defaults when there is too little), plus the next free slot on each connected channel.",
  input: z.strictObject({
    brandId: Id('The brand, from list_brands.'),
    platform: z
      .enum(PLATFORMS)
      .optional()
      .describe('x, linkedin, instagram or threads. Default: every platform the brand has a channel on.'),
  }),
  output: BestTimes.shape,
  async run(ctx, args) {
    const view = await bestTimes(ctx, args.brandId, args.platform);
    const lines = view.platforms.map((p) => {
      const top = p.slots[0];
      const best = top ? `best ${WEEKDAYS[top.weekday]} ${top.hour}:00 (${top.score})` : 'no slots';
      return `${p.platform}: ${best}${p.next_free ? `, next free ${p.next_free.at}` : ''}`;
    });
    return { summary: `Best times (${view.timezone}) — ${lines.join('; ')}.`, data: view };
  },
});
