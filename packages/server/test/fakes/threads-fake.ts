import { threadsLength } from '../../src/content/publishers/threads/index.js';
import { formOf, isFetchable, type MetaFake, startMetaFake } from './meta-fake.js';

/**
 * A local, stateful Threads API. Threads publishes no OpenAPI document; the rules follow these pages:
 * - Login and tokens: https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
 *   and https://developers.facebook.com/docs/threads/get-started/long-lived-tokens
 * - POST /<user>/threads, /threads_publish, container status; 500 characters with emojis counted as
 *   their UTF-8 bytes; carousels of 2 to 20: https://developers.facebook.com/docs/threads/reference/publishing
 * - Replies as a thread (reply_to_id): https://developers.facebook.com/docs/threads/retrieve-and-manage-replies
 * - 250 posts per 24 hours (threads_publishing_limit): https://developers.facebook.com/docs/threads/troubleshooting
 * - Insights: https://developers.facebook.com/docs/threads/insights
 */

const THREAD_FIELDS = [
  'media_type',
  'text',
  'image_url',
  'video_url',
  'is_carousel_item',
  'children',
  'reply_to_id',
  'reply_control',
  'allowlisted_country_codes',
  'alt_text',
  'link_attachment',
  'quote_post_id',
  'topic_tag',
];

export type ThreadsFake = MetaFake;

export function startThreadsFake(): Promise<ThreadsFake> {
  return startMetaFake({
    name: 'threads',
    scopes: [
      'threads_basic',
      'threads_content_publish',
      'threads_manage_insights',
      'threads_read_replies',
      'threads_manage_replies',
    ],
    exchangeGrant: 'th_exchange_token',
    refreshGrant: 'th_refresh_token',
    wrapCodeAnswer: false,
    user: { id: '25054285347538658', username: 'fieldnote', name: 'Fieldnote' },
    meFields: ['id', 'username', 'name', 'threads_profile_picture_url', 'threads_biography'],
    createEdge: 'threads',
    publishEdge: 'threads_publish',
    limitEdge: 'threads_publishing_limit',
    quotaTotal: 250,
    publishScope: 'threads_content_publish',
    statusField: 'status',
    textField: 'text',
    mediaFields: [
      'id',
      'text',
      'permalink',
      'media_type',
      'media_url',
      'timestamp',
      'username',
      'shortcode',
      'is_quote_post',
    ],
    insightsScope: 'threads_manage_insights',
    insightMetrics: ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'],
    repliesEdge: 'replies',
    repliesScope: 'threads_read_replies',
    replyFields: [
      'id',
      'text',
      'username',
      'timestamp',
      'permalink',
      'media_type',
      'has_replies',
      'hide_status',
    ],
    // The publishing reference's examples send form fields.
    bodyOf: (req) => {
      const form = formOf(req);
      return form ? Object.fromEntries(form) : undefined;
    },
    container(b, { containers, posts }) {
      const extra = Object.keys(b).filter((k) => !THREAD_FIELDS.includes(k));
      if (extra.length) return `undocumented fields ${extra.join(', ')}`;
      const text = typeof b.text === 'string' ? b.text : '';
      if (threadsLength(text) > 500) return 'text is over 500 characters (emojis count as their UTF-8 bytes)';
      const replyTo = typeof b.reply_to_id === 'string' ? b.reply_to_id : null;
      if (replyTo && !posts.has(replyTo)) return `reply_to_id ${replyTo} is no published post`;
      const item = b.is_carousel_item === 'true';
      if (b.is_carousel_item !== undefined && !['true', 'false'].includes(String(b.is_carousel_item)))
        return 'is_carousel_item is true or false';
      const base = { text, children: [] as string[], carouselItem: item, replyTo };
      switch (b.media_type) {
        case 'TEXT':
          if (!text.trim()) return 'a TEXT post needs text';
          if (b.image_url !== undefined || item) return 'a TEXT post takes no image and is no carousel item';
          return { ...base, mediaType: 'TEXT_POST', imageUrls: [] };
        case 'IMAGE':
          if (!isFetchable(b.image_url)) return 'IMAGE needs an image_url Meta can fetch';
          if (item && text) return 'a carousel item takes no text';
          return { ...base, mediaType: 'IMAGE', imageUrls: [b.image_url as string] };
        case 'CAROUSEL': {
          const children = String(b.children ?? '')
            .split(',')
            .filter(Boolean);
          if (children.length < 2 || children.length > 20) return 'a carousel has 2 to 20 children';
          const bad = children.filter((c) => !containers.get(c)?.carouselItem);
          if (bad.length) return `children ${bad.join(', ')} are no carousel item containers`;
          return { ...base, mediaType: 'CAROUSEL_ALBUM', imageUrls: [], children };
        }
        default:
          return `media_type must be TEXT, IMAGE, VIDEO or CAROUSEL, not ${String(b.media_type)}`;
      }
    },
  });
}
