import { z } from 'zod';
import { defineRoute } from '../route.js';

export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/health',
    auth: 'none',
    operationId: 'getHealth',
    description: 'Answers `{ ok: true }` while the service runs. Needs no API key.',
    summary: 'Liveness check; needs no API key.',
    tags: ['Health'],
    response: z.object({ ok: z.literal(true) }),
    handler: () => ({ ok: true as const }),
  }),
];
