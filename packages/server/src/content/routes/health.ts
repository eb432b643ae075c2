import { z } from 'zod';
import { defineRoute } from '../route.js';

export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/health',
    auth: 'public',
    operationId: 'getHealth',
    description:
      'Answers `{ ok: true }` while the service runs. Needs no key and stays reachable through the local-only gate, so load balancers and uptime checks can use it.',
    summary: 'Liveness check; reachable through the local-only gate.',
    tags: ['Health'],
    response: z.object({ ok: z.literal(true) }),
    handler: () => ({ ok: true as const }),
  }),
];
