import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import { Deleted, Id, IdeaStatus, IdParams, pageOf, pageQuery } from '../schemas/common.js';
import { CreateIdeaBody, GenerateIdeasBody, Idea, PatchIdeaBody } from '../schemas/ideas.js';
import { createIdea, deleteIdea, getIdea, listIdeas, suggestIdeas, updateIdea } from '../services/ideas.js';
import { callerOf, listBody, NOT_FOUND } from './helpers.js';

const tags = ['Ideas'];

export function ideaRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/ideas',
      auth: 'person',
      operationId: 'listIdeas',
      description:
        'Ideas of a brand, most recently updated first, filterable by status (`idea`, `drafting`, `approved`, `scheduled`, `live`).',
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
      description:
        'Adds an idea with a `title` and optional `angle` and `notes`. It starts in the Idea column (status `idea`).',
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
      description:
        "Asks the model for up to `count` ideas from the brand's strongest signals not yet turned into ideas; each idea cites its signal. When fewer can be made than asked, the answer says how many and why.",
      summary: "Suggest ideas from the brand's strongest recent signals; each idea cites its signal.",
      tags,
      status: 201,
      body: GenerateIdeasBody,
      response: z.object({ ideas: z.array(Idea) }),
      errors: { ...NOT_FOUND, 409: 'NO_SIGNALS' },
      handler: async ({ body, auth }) => ({ ideas: await suggestIdeas(ctx, body, callerOf(auth)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/ideas/:id',
      auth: 'person',
      operationId: 'getIdea',
      description: 'One idea with its status, angle, notes and the signal it cites, if any.',
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
      description:
        'Edits the title, angle or notes, or moves the idea along the pipeline. A move that is not allowed answers 409 INVALID_TRANSITION and names the allowed moves (docs/content/states.md).',
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
      description: 'Deletes the idea. Its drafts stay, no longer linked to it.',
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
