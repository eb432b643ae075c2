import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import {
  AddKnowledgeBody,
  Brand,
  BrandMemory,
  BrandSummary,
  CreateBrandBody,
  KnowledgeNote,
  MemorySaveBody,
  MemorySaveResult,
  PatchBrandBody,
} from '../schemas/brands.js';
import { Deleted, Id, IdParams, Platform, pageOf, pageQuery } from '../schemas/common.js';
import { BestTimes } from '../schemas/insights.js';
import { bestTimes } from '../services/best-times.js';
import {
  addKnowledge,
  createBrand,
  deleteBrand,
  deleteMemoryItem,
  getBrand,
  getBrandMemory,
  listBrands,
  updateBrand,
} from '../services/brands.js';
import { previewMemorySave, saveToMemory } from '../services/memory-save.js';
import { callerOf, listBody, NOT_FOUND } from './helpers.js';

const tags = ['Brands'];

export function brandRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/brands',
      auth: 'person',
      operationId: 'listBrands',
      description:
        "The workspace's brands, newest first, each with its connected channels (the same data as the MCP tool `list_brands`). Paged with `limit` and `after`.",
      summary: 'List brands, newest first, each with its connected channels.',
      tags,
      query: z.strictObject({ ...pageQuery }),
      response: pageOf('brands', BrandSummary),
      handler: async ({ query }) => listBody('brands', await listBrands(ctx, query)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/brands',
      auth: 'person',
      operationId: 'createBrand',
      description:
        'Creates a brand from a `name`, and optionally its first Brand Memory: voice (summary, do, avoid, banned words), audiences, products, knowledge, style rules and example posts.',
      summary: 'Create a brand, optionally with its Brand Memory.',
      tags,
      status: 201,
      body: CreateBrandBody,
      response: Brand,
      handler: ({ body, auth }) => createBrand(ctx, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/brands/:id',
      auth: 'person',
      operationId: 'getBrand',
      description: 'The brand with its whole Brand Memory and its connected channels.',
      summary: 'A brand with its Brand Memory and connected channels.',
      tags,
      params: IdParams,
      response: Brand,
      errors: NOT_FOUND,
      handler: ({ params }) => getBrand(ctx, params.id),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/brands/:id',
      auth: 'person',
      operationId: 'updateBrand',
      description:
        'Renames the brand and/or replaces parts of its Brand Memory. Each list you send replaces the stored list; fields you leave out stay as they are.',
      summary:
        'Rename a brand or replace parts of its Brand Memory (each list given replaces the stored one).',
      tags,
      params: IdParams,
      body: PatchBrandBody,
      response: Brand,
      errors: NOT_FOUND,
      handler: ({ params, body }) => updateBrand(ctx, params.id, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/brands/:id',
      auth: 'person',
      operationId: 'deleteBrand',
      description:
        'Deletes the brand and everything that belongs to it: ideas, drafts, posts, approvals, media, campaigns, channels and runs. This cannot be undone.',
      summary: 'Delete a brand and everything that belongs to it.',
      tags,
      params: IdParams,
      response: Deleted,
      errors: NOT_FOUND,
      handler: async ({ params }) => {
        await deleteBrand(ctx, params.id);
        return { id: params.id, deleted: true as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/brands/:id/memory',
      auth: 'person',
      operationId: 'getBrandMemory',
      description:
        'Brand Memory as JSON: voice, audiences, products, knowledge notes, style rules and example posts, each with its id and evidence links. The MCP resource `service://brands/{brandId}/memory` returns the same document.',
      summary: "The brand's Brand Memory (the same JSON as the MCP resource service://brands/{id}/memory).",
      tags,
      params: IdParams,
      response: BrandMemory,
      errors: NOT_FOUND,
      handler: ({ params }) => getBrandMemory(ctx, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/brands/:id/memory/knowledge',
      auth: 'person',
      operationId: 'addKnowledge',
      description:
        'Adds a knowledge note (`title` and `body`) that drafting and agents draw on. The same as the MCP tool `add_knowledge`.',
      summary: 'Add a knowledge note (title and body) to Brand Memory.',
      tags,
      status: 201,
      params: IdParams,
      body: AddKnowledgeBody,
      response: z.object({ note: KnowledgeNote, memory: BrandMemory }),
      errors: NOT_FOUND,
      handler: ({ params, body, auth }) => addKnowledge(ctx, params.id, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/brands/:id/memory/items/:itemId',
      auth: 'person',
      operationId: 'deleteMemoryItem',
      description:
        'Removes one entry (a rule, knowledge note, audience, product or example post) from Brand Memory by its id.',
      summary: 'Remove one Brand Memory entry (rule, note, audience, product or example post) by id.',
      tags,
      params: z.strictObject({ id: Id, itemId: Id }),
      response: BrandMemory,
      errors: NOT_FOUND,
      handler: ({ params }) => deleteMemoryItem(ctx, params.id, params.itemId),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/brands/:id/memory/save',
      auth: 'person',
      operationId: 'saveToMemory',
      description:
        'Turns something the brand said or heard into memory: `from` names the source (post, reply, reply theme, signal or draft), `as` what it becomes. Rules keep a link to their source as evidence. The same as the MCP tool `save_to_memory`.',
      summary:
        'Save a post, reply, reply theme, signal or draft to Brand Memory as a knowledge note, an excerpt, an example post, or a do / avoid rule. Rules link back to the source as evidence.',
      tags,
      params: IdParams,
      body: MemorySaveBody,
      response: MemorySaveResult,
      errors: { ...NOT_FOUND, 422: 'UNKNOWN_SOURCE, EXCERPT_NOT_IN_SOURCE or RULE_TEXT_REQUIRED.' },
      handler: ({ params, body, auth }) => saveToMemory(ctx, params.id, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/brands/:id/memory/preview',
      auth: 'person',
      operationId: 'previewMemorySave',
      description:
        'Answers what the same body sent to `/memory/save` would add to Brand Memory, without saving anything, so the app can show it before the person confirms.',
      summary: 'What a memory save would change, without saving.',
      tags,
      params: IdParams,
      body: MemorySaveBody,
      response: MemorySaveResult,
      errors: NOT_FOUND,
      handler: ({ params, body }) => previewMemorySave(ctx, params.id, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/brands/:id/best-times',
      auth: 'person',
      operationId: 'getBestTimes',
      description:
        "Scores each weekday-and-hour slot 0..1 from the brand's own published posts, or from platform defaults while there is too little history (the response says which). Also gives the next free slot on each channel, skipping slots already taken by scheduled posts and pending approvals.",
      summary:
        "Best slots per platform (weekday 0 = Sunday, hour 0-23 server local time, score 0..1) from the brand's own history, or platform defaults with too little history; with the next free slot per channel.",
      tags,
      params: IdParams,
      query: z.strictObject({ platform: Platform.optional() }),
      response: BestTimes,
      errors: NOT_FOUND,
      handler: ({ params, query }) => bestTimes(ctx, params.id, query.platform),
    }),
  ];
}
