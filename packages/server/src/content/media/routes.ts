import { z } from 'zod';
import { PAGE } from '../domain.js';
import { defineRoute } from '../route.js';
import { contentRegistry } from '../schemas.js';
import type { MediaLimits } from './limits.js';
import { AltText, FocalPoint, MediaAsset, MediaFit, MediaPage, Tag, Tags } from './schemas.js';
import type { MediaService } from './service.js';
import { multipartUpload, UploadedFile } from './upload.js';

const BrandParams = z.object({ id: z.string().min(1) });
const AssetParams = z.object({ id: z.string().min(1) });
const ERRORS = { 404: 'No such brand or media asset (NOT_FOUND).' };
const INGEST_ERRORS = {
  ...ERRORS,
  413: 'The file is over the size cap (MEDIA_TOO_LARGE).',
  415: 'The bytes are not an accepted image or video (UNSUPPORTED_MEDIA), or the body is not multipart (UNSUPPORTED_MEDIA_TYPE).',
};

/** Only the multipart parser makes an UploadedFile, so a text field named `file` fails here. */
const FilePart = z.instanceof(UploadedFile, {
  message: "attach the file as a multipart file part named 'file'",
});
// OpenAPI sees the part as a binary string; the registry's metadata is what the document uses.
contentRegistry.add(FilePart, {
  description: 'The image (JPEG, PNG, WebP, GIF, AVIF, HEIF, TIFF) or video (MP4, MOV, WebM).',
  type: 'string',
  format: 'binary',
} as { description: string });

const UploadBody = z.strictObject({ file: FilePart, alt: AltText.optional(), tags: Tags.optional() });

export function mediaRoutes(media: MediaService, opts: { root: string; limits: MediaLimits }) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/brands/:id/media',
      auth: 'person',
      operationId: 'listMedia',
      description:
        "The brand's media library, newest first, filterable by tag; each asset with its crops' public URLs.",
      summary: "List a brand's media library, newest first.",
      tags: ['Media'],
      params: BrandParams,
      query: z.strictObject({
        tag: Tag.optional().describe('Only assets with this tag.'),
        limit: z.coerce.number().int().min(1).max(PAGE.maxLimit).optional(),
        after: z.string().min(1).optional().describe('The `next_after` of the previous page.'),
      }),
      response: MediaPage,
      errors: ERRORS,
      handler: async ({ params, query }) => {
        const page = await media.listAssets(params.id, query);
        return { media: page.assets, has_more: page.has_more, next_after: page.next_after };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/brands/:id/media',
      auth: 'person',
      operationId: 'uploadMedia',
      summary: 'Upload an image or video (multipart/form-data: file, alt, tags).',
      description:
        'The type is detected from the bytes, not the Content-Type. Images are re-encoded without metadata and cropped per platform around the focal point; video is stored as is. A browser must send a same-origin Origin (or none).',
      tags: ['Media'],
      params: BrandParams,
      bodyType: 'multipart',
      before: [multipartUpload(opts)],
      body: UploadBody,
      status: 201,
      response: MediaAsset,
      errors: INGEST_ERRORS,
      handler: ({ params, body }) => media.upload(params.id, body.file, body),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/brands/:id/media/from-url',
      auth: 'person',
      operationId: 'importMediaFromUrl',
      summary: 'Import an image or video from a public http(s) URL.',
      description:
        'Only public addresses are fetched: private, loopback and link-local targets are refused, also after DNS resolution and on every redirect (at most 3).',
      tags: ['Media'],
      params: BrandParams,
      body: z.strictObject({
        url: z.string().min(1).max(2048),
        alt: AltText.optional(),
        tags: Tags.optional(),
      }),
      status: 201,
      response: MediaAsset,
      errors: {
        ...INGEST_ERRORS,
        400: 'Invalid body, or the URL is not public (URL_NOT_ALLOWED, INVALID_URL).',
        502: 'The URL could not be fetched (FETCH_FAILED).',
      },
      handler: ({ params, body }) => media.importFromUrl(params.id, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/media/:id',
      auth: 'person',
      operationId: 'getMedia',
      description:
        'One asset: kind, size, alt text, tags, focal point and the public URL of each crop variant.',
      summary: 'One media asset with the URL of each crop.',
      tags: ['Media'],
      params: AssetParams,
      response: MediaAsset,
      errors: ERRORS,
      handler: ({ params }) => media.getAsset(null, params.id),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/media/:id',
      auth: 'person',
      operationId: 'updateMedia',
      description:
        'Changes alt text, tags or the focal point. A new focal point renders new crops; see docs/content/media.md for what happens to images that drafts and posts already use.',
      summary:
        'Change alt text, tags or the focal point. A new focal point re-renders the crops at new URLs.',
      tags: ['Media'],
      params: AssetParams,
      body: z.strictObject({
        alt: AltText.optional(),
        tags: Tags.optional(),
        focal_point: FocalPoint.optional(),
      }),
      response: MediaAsset,
      errors: ERRORS,
      handler: ({ params, body }) => media.update(params.id, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/media/:id',
      auth: 'person',
      operationId: 'deleteMedia',
      description:
        'Deletes the asset and its files. See docs/content/media.md for what drafts and posts that used it show afterwards.',
      summary: 'Delete an asset and all its files. Its URLs stop working at once.',
      tags: ['Media'],
      params: AssetParams,
      response: z.object({ id: z.string(), deleted: z.literal(true) }),
      errors: ERRORS,
      handler: async ({ params }) => {
        await media.remove(params.id);
        return { id: params.id, deleted: true as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/media/:id/fit',
      auth: 'person',
      operationId: 'getMediaFit',
      description:
        'How the asset fits each platform: aspect ratio, size and duration limits, the preferred crop and any warnings.',
      summary: 'How the asset fits each platform: ratio, size and duration limits, preferred crop, warnings.',
      tags: ['Media'],
      params: AssetParams,
      response: MediaFit,
      errors: ERRORS,
      handler: ({ params }) => media.fit(params.id),
    }),
  ];
}
