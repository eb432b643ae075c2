import { formOf, isFetchable, jsonOf, type MetaFake, startMetaFake } from './meta-fake.js';

/**
 * A local, stateful Instagram API with Instagram Login. Instagram publishes no OpenAPI document; the
 * rules follow these reference pages:
 * - Business Login (authorise, code exchange, long-lived token, refresh):
 *   https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login
 * - Content publishing (containers, status_code, media_publish, content_publishing_limit; JPEG,
 *   2,200-character captions, 30 hashtags, 20 @tags, carousels of up to 10; 100 posts per 24 hours):
 *   https://developers.facebook.com/docs/instagram-platform/content-publishing
 * - POST /<IG_ID>/media fields: https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media
 * - Media insights: https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights
 * - Comments: https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/comments
 */

const MEDIA_FIELDS = [
  'image_url',
  'caption',
  'is_carousel_item',
  'media_type',
  'children',
  'alt_text',
  'location_id',
  'user_tags',
  'collaborators',
];

export type InstagramFake = MetaFake;

export function startInstagramFake(): Promise<InstagramFake> {
  return startMetaFake({
    name: 'instagram',
    scopes: [
      'instagram_business_basic',
      'instagram_business_content_publish',
      'instagram_business_manage_comments',
      'instagram_business_manage_insights',
      'instagram_business_manage_messages',
    ],
    exchangeGrant: 'ig_exchange_token',
    refreshGrant: 'ig_refresh_token',
    wrapCodeAnswer: true,
    user: { id: '17841400008460056', username: 'fieldnote.studio', name: 'Fieldnote Studio' },
    meFields: ['id', 'user_id', 'username', 'name', 'account_type', 'profile_picture_url'],
    createEdge: 'media',
    publishEdge: 'media_publish',
    limitEdge: 'content_publishing_limit',
    quotaTotal: 100,
    publishScope: 'instagram_business_content_publish',
    statusField: 'status_code',
    textField: 'caption',
    mediaFields: [
      'id',
      'caption',
      'permalink',
      'media_type',
      'media_url',
      'timestamp',
      'username',
      'like_count',
      'comments_count',
    ],
    insightsScope: 'instagram_business_manage_insights',
    insightMetrics: [
      'views',
      'reach',
      'likes',
      'comments',
      'shares',
      'saved',
      'total_interactions',
      'profile_visits',
      'follows',
    ],
    repliesEdge: 'comments',
    repliesScope: 'instagram_business_manage_comments',
    replyFields: ['id', 'text', 'username', 'timestamp', 'like_count', 'from', 'hidden', 'parent_id'],
    bodyOf: (req) => {
      const json = jsonOf(req);
      if (json && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
      const form = formOf(req);
      return form ? Object.fromEntries(form) : undefined;
    },
    container(b, { containers }) {
      const extra = Object.keys(b).filter((k) => !MEDIA_FIELDS.includes(k));
      if (extra.length) return `undocumented fields ${extra.join(', ')}`;
      const caption = b.caption === undefined ? '' : b.caption;
      if (typeof caption !== 'string') return 'caption must be a string';
      if ([...caption].length > 2200) return 'caption is longer than 2,200 characters';
      if ((caption.match(/#[\p{L}\p{N}_]+/gu) ?? []).length > 30) return 'caption has more than 30 hashtags';
      const item = b.is_carousel_item === true || b.is_carousel_item === 'true';
      if (b.media_type === 'CAROUSEL') {
        const children = Array.isArray(b.children)
          ? b.children.map(String)
          : String(b.children ?? '')
              .split(',')
              .filter(Boolean);
        if (children.length < 2 || children.length > 10) return 'a carousel has 2 to 10 children';
        const bad = children.filter((c) => !containers.get(c)?.carouselItem);
        if (bad.length) return `children ${bad.join(', ')} are no carousel item containers`;
        if (b.image_url !== undefined) return 'a carousel container takes children, not image_url';
        return {
          mediaType: 'CAROUSEL_ALBUM',
          text: caption,
          imageUrls: [],
          children,
          carouselItem: false,
          replyTo: null,
        };
      }
      if (b.media_type !== undefined)
        return `media_type ${String(b.media_type)} is not an image post (images leave it out)`;
      if (!isFetchable(b.image_url)) return 'image_url must be an absolute URL Meta can fetch';
      if (item && caption) return 'a carousel item takes no caption (the carousel container has it)';
      return {
        mediaType: 'IMAGE',
        text: caption,
        imageUrls: [b.image_url as string],
        children: [],
        carouselItem: item,
        replyTo: null,
      };
    },
  });
}
