import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import { DraftStatus, Id, IdParams, Platform, pageOf, pageQuery } from '../schemas/common.js';
import {
  AttachMediaBody,
  CreateDraftBody,
  Draft,
  DraftDetail,
  DraftVersion,
  EditDraftBody,
  GenerateDraftsBody,
  RewriteDraftBody,
} from '../schemas/drafts.js';
import {
  attachMedia,
  createDraft,
  editDraft,
  generateDrafts,
  getDraftDetail,
  getDraftVersion,
  listDrafts,
  rewriteDraft,
} from '../services/drafts.js';
import { callerOf, listBody, NOT_FOUND } from './helpers.js';

const tags = ['Drafts'];
const LIMITS = {
  422: 'TOO_LONG or TOO_MANY_PARTS: over the platform limit.',
  409: 'DRAFT_LOCKED, DRAFT_EXISTS',
};

export function draftRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/drafts',
      auth: 'person',
      operationId: 'listDrafts',
      description:
        'Drafts, most recently changed first, each at its current version, filterable by brand, idea and platform.',
      summary: 'Drafts, most recently changed first, each at its current version.',
      tags,
      query: z.strictObject({
        brand_id: Id.optional(),
        idea_id: Id.optional(),
        platform: Platform.optional(),
        status: DraftStatus.optional(),
        ...pageQuery,
      }),
      response: pageOf('drafts', Draft),
      handler: async ({ query }) => listBody('drafts', await listDrafts(ctx, query, query)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/drafts',
      auth: 'person',
      operationId: 'createDraft',
      description:
        'Writes a draft by hand for one platform (`x`, `linkedin`, `instagram`, `threads`) as version 1. An idea has at most one draft per platform; parts beyond the first make a thread.',
      summary: 'Write a draft by hand (version 1). One draft per platform per idea.',
      tags,
      status: 201,
      body: CreateDraftBody,
      response: Draft,
      errors: { ...NOT_FOUND, ...LIMITS },
      handler: ({ body, auth }) => createDraft(ctx, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/drafts/generate',
      auth: 'person',
      operationId: 'generateDrafts',
      description:
        "Has the model draft the idea for each platform asked for, in the brand's voice and within the platform's limits. A platform that already has a draft for the idea gets a new version instead.",
      summary:
        'Draft an idea for one or more platforms with the model. A platform that already has a draft for the idea gets a new version.',
      tags,
      status: 201,
      body: GenerateDraftsBody,
      response: z.object({ drafts: z.array(Draft) }),
      errors: { ...NOT_FOUND, ...LIMITS, 501: 'MODEL_NOT_CONFIGURED' },
      handler: async ({ body, auth }) => ({ drafts: await generateDrafts(ctx, body, callerOf(auth)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/drafts/:id',
      auth: 'person',
      operationId: 'getDraft',
      description:
        'The draft at its current version (text parts, media, length against the platform limit) with the list of every earlier version.',
      summary: 'A draft at its current version, with every earlier version.',
      tags,
      params: IdParams,
      response: DraftDetail,
      errors: NOT_FOUND,
      handler: ({ params }) => getDraftDetail(ctx, params.id),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/drafts/:id',
      auth: 'person',
      operationId: 'editDraft',
      description:
        'Replaces the text parts and saves a new version; the media on the first part stays attached.',
      summary: 'Edit the text; saves a new version. Media on the first part stays.',
      tags,
      params: IdParams,
      body: EditDraftBody,
      response: Draft,
      errors: { ...NOT_FOUND, ...LIMITS },
      handler: ({ params, body, auth }) => editDraft(ctx, params.id, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/drafts/:id/versions/:version',
      auth: 'person',
      operationId: 'getDraftVersion',
      description: 'One version of the draft exactly as it was saved, so the app can show or restore it.',
      summary: 'One earlier (or the current) version of a draft.',
      tags,
      params: z.strictObject({ id: Id, version: z.coerce.number().int().min(1) }),
      response: DraftVersion,
      errors: NOT_FOUND,
      handler: ({ params }) => getDraftVersion(ctx, params.id, params.version),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/drafts/:id/rewrite',
      auth: 'person',
      operationId: 'rewriteDraft',
      description:
        'Has the model rewrite the draft following `instruction` (for example shorter, a question hook, more formal) and saves the result as a new version.',
      summary: 'Rewrite the draft with the model following an instruction; saves a new version.',
      tags,
      params: IdParams,
      body: RewriteDraftBody,
      response: Draft,
      errors: { ...NOT_FOUND, ...LIMITS, 501: 'MODEL_NOT_CONFIGURED' },
      handler: ({ params, body, auth }) => rewriteDraft(ctx, params.id, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/drafts/:id/media',
      auth: 'person',
      operationId: 'attachMedia',
      description:
        "Attaches a media asset to the draft's first part and saves a new version. The crop defaults to the platform's preferred one; name a `variant` to choose another.",
      summary:
        "Attach a media asset to the draft's first part, as the platform's preferred crop unless a variant is named; saves a new version.",
      tags,
      params: IdParams,
      body: AttachMediaBody,
      response: Draft,
      errors: { ...NOT_FOUND, 422: 'UNKNOWN_VARIANT or TOO_MANY_MEDIA', 409: 'DRAFT_LOCKED' },
      handler: ({ params, body, auth }) => attachMedia(ctx, params.id, body, callerOf(auth)),
    }),
  ];
}
