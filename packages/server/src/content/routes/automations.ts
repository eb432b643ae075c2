import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import {
  Automation,
  AutomationRunResult,
  CreateAutomationBody,
  PatchAutomationBody,
} from '../schemas/automations.js';
import { Deleted, Id, IdParams, pageOf, pageQuery } from '../schemas/common.js';
import {
  createAutomation,
  deleteAutomation,
  getAutomation,
  listAutomations,
  runAutomationNow,
  updateAutomation,
} from '../services/automations.js';
import { listBody, NOT_FOUND } from './helpers.js';

const tags = ['Automations'];

export function automationRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/automations',
      auth: 'person',
      operationId: 'listAutomations',
      description: 'Automations, newest first, each with how many runs it used today against its daily cap.',
      summary: 'Automations, newest first, with runs used today.',
      tags,
      query: z.strictObject({ brand_id: Id.optional(), ...pageQuery }),
      response: pageOf('automations', Automation),
      handler: async ({ query }) => listBody('automations', await listAutomations(ctx, query, query)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/automations',
      auth: 'person',
      operationId: 'createAutomation',
      description:
        'Runs an agent on a schedule or after a post event (`post.published`, `post.metrics_settled`). Every automation has its own daily cap, and the workspace has one too (docs/content/automations.md).',
      summary:
        'Run an agent on a schedule or after a post event (post.published, post.metrics_settled), within daily caps.',
      tags,
      status: 201,
      body: CreateAutomationBody,
      response: Automation,
      errors: NOT_FOUND,
      handler: ({ body }) => createAutomation(ctx, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/automations/:id',
      auth: 'person',
      operationId: 'getAutomation',
      description: "One automation with its trigger, agent, inputs, cap and today's count.",
      summary: 'One automation.',
      tags,
      params: IdParams,
      response: Automation,
      errors: NOT_FOUND,
      handler: ({ params }) => getAutomation(ctx, params.id),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/automations/:id',
      auth: 'person',
      operationId: 'updateAutomation',
      description: 'Changes the trigger, inputs or cap, or pauses and resumes the automation.',
      summary: 'Change, pause or resume an automation.',
      tags,
      params: IdParams,
      body: PatchAutomationBody,
      response: Automation,
      errors: NOT_FOUND,
      handler: ({ params, body }) => updateAutomation(ctx, params.id, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/automations/:id',
      auth: 'person',
      operationId: 'deleteAutomation',
      description: 'Deletes the automation. The runs it made stay readable.',
      summary: 'Delete an automation. Runs it made stay readable.',
      tags,
      params: IdParams,
      response: Deleted,
      errors: NOT_FOUND,
      handler: async ({ params }) => {
        await deleteAutomation(ctx, params.id);
        return { id: params.id, deleted: true as const };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/automations/:id/run',
      auth: 'person',
      operationId: 'runAutomation',
      description:
        "Runs the automation's agent now. It counts toward the automation's daily cap and the workspace cap; past a cap it answers 429 with Retry-After (until local midnight).",
      summary: 'Run the automation now. Counts toward its daily cap and the workspace cap.',
      tags,
      status: 201,
      params: IdParams,
      response: AutomationRunResult,
      errors: { ...NOT_FOUND, 429: 'DAILY_CAP_REACHED', 409: 'NEEDS_EVENT' },
      handler: ({ params }) => runAutomationNow(ctx, params.id),
    }),
  ];
}
