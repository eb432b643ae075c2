import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import {
  AddNoteBody,
  Campaign,
  Canvas,
  CanvasItem,
  CanvasItemParams,
  CreateCampaignBody,
  PatchCampaignBody,
  PatchCanvasItemBody,
} from '../schemas/campaigns.js';
import { Deleted, Id, IdParams, pageOf, pageQuery } from '../schemas/common.js';
import {
  addCanvasNote,
  createCampaign,
  deleteCampaign,
  deleteCanvasItem,
  getCampaign,
  getCanvas,
  listCampaigns,
  updateCampaign,
  updateCanvasItem,
} from '../services/campaigns.js';
import { listBody, NOT_FOUND } from './helpers.js';

const tags = ['Campaigns'];

export function campaignRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/campaigns',
      auth: 'person',
      operationId: 'listCampaigns',
      description: 'Campaigns of a brand, or of the workspace, newest first.',
      summary: 'Campaigns, newest first.',
      tags,
      query: z.strictObject({ brand_id: Id.optional(), ...pageQuery }),
      response: pageOf('campaigns', Campaign),
      handler: async ({ query }) => listBody('campaigns', await listCampaigns(ctx, query, query)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/campaigns',
      auth: 'person',
      operationId: 'createCampaign',
      description: 'Creates a campaign with a name, optional goal and dates, and an empty canvas.',
      summary: 'Create a campaign (with an empty canvas).',
      tags,
      status: 201,
      body: CreateCampaignBody,
      response: Campaign,
      errors: { ...NOT_FOUND, 422: 'INVALID_DATES' },
      handler: ({ body }) => createCampaign(ctx, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/campaigns/:id',
      auth: 'person',
      operationId: 'getCampaign',
      description: 'One campaign with its name, goal and dates.',
      summary: 'One campaign.',
      tags,
      params: IdParams,
      response: Campaign,
      errors: NOT_FOUND,
      handler: ({ params }) => getCampaign(ctx, params.id),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/campaigns/:id',
      auth: 'person',
      operationId: 'updateCampaign',
      description: "Changes the campaign's name, goal or dates.",
      summary: 'Change a campaign.',
      tags,
      params: IdParams,
      body: PatchCampaignBody,
      response: Campaign,
      errors: { ...NOT_FOUND, 422: 'INVALID_DATES' },
      handler: ({ params, body }) => updateCampaign(ctx, params.id, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/campaigns/:id',
      auth: 'person',
      operationId: 'deleteCampaign',
      description: 'Deletes the campaign and its canvas. Its ideas stay.',
      summary: 'Delete a campaign and its canvas; its ideas stay.',
      tags,
      params: IdParams,
      response: Deleted,
      errors: NOT_FOUND,
      handler: async ({ params }) => {
        await deleteCampaign(ctx, params.id);
        return { id: params.id, deleted: true as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/campaigns/:id/canvas',
      auth: 'person',
      operationId: 'getCanvas',
      description:
        'Everything on the campaign canvas (sticky notes and other items) with positions and sizes, oldest first.',
      summary: 'Everything on the campaign canvas, oldest first.',
      tags,
      params: IdParams,
      response: Canvas,
      errors: NOT_FOUND,
      handler: ({ params }) => getCanvas(ctx, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/campaigns/:id/canvas/notes',
      auth: 'person',
      operationId: 'addCanvasNote',
      description:
        'Puts a sticky note on the canvas, placed to the right of everything already on it so it never covers anything. The same as the MCP tool `add_canvas_note`.',
      summary: 'Put a sticky note on the canvas, to the right of everything already on it.',
      tags,
      status: 201,
      params: IdParams,
      body: AddNoteBody,
      response: CanvasItem,
      errors: NOT_FOUND,
      handler: ({ params, body }) => addCanvasNote(ctx, params.id, body),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/campaigns/:id/canvas/items/:itemId',
      auth: 'person',
      operationId: 'updateCanvasItem',
      description: 'Moves, resizes, recolours or re-words one canvas item.',
      summary: 'Move, resize, recolour or re-word a canvas item.',
      tags,
      params: CanvasItemParams,
      body: PatchCanvasItemBody,
      response: CanvasItem,
      errors: NOT_FOUND,
      handler: ({ params, body }) => updateCanvasItem(ctx, params.id, params.itemId, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/campaigns/:id/canvas/items/:itemId',
      auth: 'person',
      operationId: 'deleteCanvasItem',
      description: 'Removes one item from the canvas.',
      summary: 'Remove an item from the canvas.',
      tags,
      params: CanvasItemParams,
      response: Deleted,
      errors: NOT_FOUND,
      handler: async ({ params }) => {
        await deleteCanvasItem(ctx, params.id, params.itemId);
        return { id: params.itemId, deleted: true as const };
      },
    }),
  ];
}
