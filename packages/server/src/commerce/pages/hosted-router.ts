import express, { type Request, type Response, type Router } from 'express';
import { formBody } from '../../platform/http/body.js';
import type { CommerceContext } from '../context.js';
import { publicBaseUrl } from '../routes/base-url.js';
import { decideApproval, viewApproval } from '../services/approvals.js';
import { decideConfirmation, viewConfirmation } from '../services/confirmations.js';
import { approvalPage } from './approval-page.js';
import { confirmPage } from './confirm-page.js';
import { html, messagePage, sendPage } from './html.js';

const field = (req: Request, name: string): string => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};
const fields = (req: Request, name: string): string[] => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return Array.isArray(v)
    ? v.filter((x): x is string => typeof x === 'string')
    : typeof v === 'string'
      ? [v]
      : [];
};
const query = (req: Request, name: string) =>
  typeof req.query[name] === 'string' ? (req.query[name] as string) : '';

const GONE: Record<string, [number, string, string]> = {
  missing: [404, 'Link not found', 'This approval link is not valid. Ask the app to start again.'],
  expired: [
    410,
    'This link has expired',
    'Approval links last 30 minutes. Go back to the app and start again.',
  ],
  used: [410, 'This link was already used', 'This approval was already answered. Go back to the app.'],
  stale_form: [
    409,
    'This form is out of date',
    'The page was submitted twice or opened in another tab. Go back to the app and start again.',
  ],
};

function gone(res: Response, state: string) {
  const [status, title, message] = GONE[state] ?? GONE.missing ?? [404, 'Not found', ''];
  messagePage(res, status, title, message);
}

/**
 * The pages users see: the approval flow and the confirmation of a large total. Plain HTML
 * forms, no JavaScript. Mounted before the JSON body parser because forms post urlencoded.
 * A one-time form token in each form means only a page we rendered can submit a decision.
 */
export function hostedRouter(ctx: CommerceContext): Router {
  const router = express.Router();
  const form = formBody({ limitBytes: 16 * 1024, parameterLimit: 100 }, (_req, res, err) =>
    messagePage(
      res,
      err.status,
      'This form could not be sent',
      `${err.message} Go back to the app and start again.`,
    ),
  );

  router.get('/hosted/approve', async (req, res, next) => {
    try {
      const token = query(req, 'token');
      const view = token ? await viewApproval(ctx, token) : ({ state: 'missing' } as const);
      if (view.state !== 'pending') return gone(res, view.state);
      sendPage(
        res,
        200,
        `Approve ${view.approval.app_name}`,
        approvalPage({
          appName: view.approval.app_name,
          clientUserId: view.approval.client_user_id,
          rules: view.rules,
          stores: view.stores,
          allowed: view.allowed,
          token,
          formToken: view.formToken,
          expiresAt: view.approval.expires_at,
        }),
        { formTargets: [new URL(view.approval.redirect_uri).origin] },
      );
    } catch (err) {
      next(err);
    }
  });

  router.post('/hosted/approve', form, async (req, res, next) => {
    try {
      const decision = field(req, 'decision');
      if (decision !== 'approve' && decision !== 'decline') {
        return messagePage(res, 400, 'Choose approve or decline', 'The form was sent without a decision.');
      }
      const out = await decideApproval(ctx, {
        token: field(req, 'token'),
        formToken: field(req, 'form_token'),
        approve: decision === 'approve',
        connect: fields(req, 'connect'),
        baseUrl: publicBaseUrl(req, ctx.config),
      });
      if (out.state !== 'redirect') return gone(res, out.state);
      res.set('Cache-Control', 'no-store').redirect(303, out.location);
    } catch (err) {
      next(err);
    }
  });

  router.get('/hosted/confirm', async (req, res, next) => {
    try {
      const token = query(req, 'token');
      const view = token ? await viewConfirmation(ctx, token) : ({ state: 'done' } as const);
      if (view.state !== 'pending') {
        return messagePage(res, 410, 'Nothing to confirm', 'This order no longer needs your confirmation.');
      }
      sendPage(res, 200, `Confirm your order at ${view.merchant.name}`, confirmPage({ ...view, token }));
    } catch (err) {
      next(err);
    }
  });

  router.post('/hosted/confirm', form, async (req, res, next) => {
    try {
      const decision = field(req, 'decision');
      if (decision !== 'approve' && decision !== 'decline') {
        return messagePage(res, 400, 'Choose confirm or do not buy', 'The form was sent without a decision.');
      }
      const out = await decideConfirmation(ctx, {
        token: field(req, 'token'),
        formToken: field(req, 'form_token'),
        approve: decision === 'approve',
        baseUrl: publicBaseUrl(req, ctx.config),
      });
      if (out === 'confirmed')
        return messagePage(res, 200, 'Order confirmed', 'Thank you. You can close this page.');
      if (out === 'declined')
        return messagePage(res, 200, 'Order not placed', 'Nothing was bought. You can close this page.');
      if (out === 'stale_form') return gone(res, 'stale_form');
      messagePage(res, 410, 'Nothing to confirm', 'This order no longer needs your confirmation.');
    } catch (err) {
      next(err);
    }
  });

  // Keeps the hosted pages' own HTML 404 from turning into the JSON API's.
  router.all(/^\/hosted(\/.*)?$/, (_req, res) => sendPage(res, 404, 'Not found', html`<h1>Not found</h1>`));
  return router;
}
