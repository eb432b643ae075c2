import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import { Deleted, Id, IdeaStatus, IdParams, pageOf, pageQuery } from '../schemas/common.js';
import { CreateIdeaBody, GeneratedIdeas, GenerateIdeasBody, Idea, PatchIdeaBody } from '../schemas/ideas.js';
import { createIdea, deleteIdea, generateIdeas, getIdea, listIdeas, updateIdea } from '../services/ideas.js';
import { callerOf, listBody, NOT_FOUND } from './helpers.js';

const tags = ['Ideas'];

export function ideaRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/ideas',
      auth: 'person',
      operationId: 'listIdeas',
      summary: 'Ideas, most recently updated first.',
      tags,
      query: z.strictObject({
        brand_id: Id.optional(),
        status: IdeaStatus.optional(),
        campaign_id: Id.optional(),
        ...pageQuery,
      }),
      response: pageOf('ideas', Idea),
      handler: async ({ query }) => listBody('ideas', await listIdeas(ctx, query, query)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/ideas',
      auth: 'person',
      operationId: 'createIdea',
      summary: 'Add an idea; it starts in the Idea column (status idea).',
      tags,
      status: 201,
      body: CreateIdeaBody,
      response: Idea,
      errors: NOT_FOUND,
      handler: ({ body, auth }) => createIdea(ctx, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/ideas/generate',
      auth: 'person',
      operationId: 'generateIdeas',
      summary:
        "Suggest ideas from the brand's strongest recent signals; each idea cites its signal. Fewer than `count` comes with a `shortfall` saying why; none is a 409.",
      tags,
      status: 201,
      body: GenerateIdeasBody,
      response: GeneratedIdeas,
      errors: { ...NOT_FOUND, 409: 'NO_SIGNALS, SIGNALS_EXHAUSTED' },
      handler: ({ body, auth }) => generateIdeas(ctx, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/ideas/:id',
      auth: 'person',
      operationId: 'getIdea',
      summary: 'One idea.',
      tags,
      params: IdParams,
      response: Idea,
      errors: NOT_FOUND,
      handler: ({ params }) => getIdea(ctx, params.id),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/ideas/:id',
      auth: 'person',
      operationId: 'updateIdea',
      summary: 'Edit an idea or move it along the pipeline (allowed moves in docs/content/states.md).',
      tags,
      params: IdParams,
      body: PatchIdeaBody,
      response: Idea,
      errors: { ...NOT_FOUND, 409: 'INVALID_TRANSITION' },
      handler: ({ params, body }) => updateIdea(ctx, params.id, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/ideas/:id',
      auth: 'person',
      operationId: 'deleteIdea',
      summary: 'Delete an idea. Its drafts stay, unlinked.',
      tags,
      params: IdParams,
      response: Deleted,
      errors: NOT_FOUND,
      handler: async ({ params }) => {
        await deleteIdea(ctx, params.id);
        return { id: params.id, deleted: true as const };
      },
    }),
  ];
}
