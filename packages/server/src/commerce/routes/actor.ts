import type { Request } from 'express';
import type { CommerceUserContext } from '../auth.js';
import type { CommerceContext } from '../context.js';
import type { CheckoutActor } from '../services/checkouts.js';
import { publicBaseUrl } from './base-url.js';

export const actorOf = (ctx: CommerceContext, auth: CommerceUserContext, req: Request): CheckoutActor => ({
  accountId: auth.accountId,
  env: auth.env,
  userId: auth.userId,
  rules: auth.rules,
  baseUrl: publicBaseUrl(req, ctx.config),
});
