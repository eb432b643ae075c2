import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import { AppError } from '../../platform/errors.js';
import { formBody } from '../../platform/http/body.js';
import type { CommerceContext } from '../context.js';
import { publicBaseUrl } from '../routes/base-url.js';
import { decideApproval, viewApproval } from '../services/approvals.js';
import { viewCardPayment } from '../services/card-payments.js';
import { payByCard } from '../services/checkouts.js';
import { decideConfirmation, viewConfirmation } from '../services/confirmations.js';
import { tokenEnv } from '../services/tokens.js';
import { approvalPage } from './approval-page.js';
import { confirmedPage, confirmPage, needsScript, PASSKEY_SCRIPT_PATH, sandboxNote } from './confirm-page.js';
import { html, sendPage } from './html.js';
import { PASSKEY_SCRIPT } from './passkey-script.js';
import { cardDisplay, isPaymentToken, PAY_SCRIPT, PAY_SCRIPT_PATH, paidPage, payPage } from './pay-page.js';

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

/** The token the shopper's page carries, from the link or the form, to word pages for its environment. */
const pageEnv = (req: Request) => tokenEnv(query(req, 'token') || field(req, 'token'));

/** Every hosted answer that is not the form itself: a plain page in the shopper's words. */
function shopperPage(req: Request, res: Response, status: number, title: string, message: string) {
  sendPage(res, status, title, html`<h1>${title}</h1><p>${message}</p>${sandboxNote(pageEnv(req))}`);
}

function gone(req: Request, res: Response, state: string) {
  const [status, title, message] = GONE[state] ?? GONE.missing ?? [404, 'Not found', ''];
  shopperPage(req, res, status, title, message);
}

/**
 * Whatever fails behind a hosted page — a form the body parser refuses, a store that cannot be
 * connected, a bug — the shopper gets a page, never the API's JSON or a stack. Server faults are
 * logged with the request id, which the page shows as a reference for support.
 */
function hostedErrors(ctx: CommerceContext): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    const raw = (err as { status?: unknown; statusCode?: unknown } | null) ?? {};
    const declared = Number(raw.status ?? raw.statusCode);
    const status = declared >= 400 && declared < 500 ? declared : 500;
    if (status === 500) {
      ctx.logger.error(
        { err, requestId: req.requestId, method: req.method, path: req.path },
        'hosted page failed',
      );
    }
    // A refusal the platform explains (a form too large, compressed, in another charset) keeps
    // its explanation; everything else gets words for a shopper, not an internal code.
    const explained = err instanceof AppError && status < 500 && err.code !== 'INTERNAL_ERROR';
    const [title, message] =
      explained && status !== 400
        ? [
            status === 413 ? 'This form is too large' : 'This form could not be sent',
            `${(err as AppError).message} Go back to the app and start again.`,
          ]
        : status === 413
          ? [
              'This form is too large',
              'The page sent more than we can read. Go back to the app and start again.',
            ]
          : status === 500
            ? [
                'Something went wrong on our side',
                'Nothing was bought and nothing was changed. Go back to the app and try again in a moment.',
              ]
            : [
                'We could not complete this',
                'Nothing was bought and nothing was changed. Go back to the app and start again.',
              ];
    sendPage(
      res,
      status,
      title,
      html`<h1>${title}</h1><p>${message}</p>${sandboxNote(pageEnv(req))}<p class="muted">Reference: ${req.requestId}</p>`,
    );
  };
}

/**
 * The pages users see: the approval flow and the confirmation of a large total. Plain HTML
 * forms, no JavaScript. Mounted before the JSON body parser because forms post urlencoded.
 * A one-time form token in each form means only a page we rendered can submit a decision.
 */
export function hostedRouter(ctx: CommerceContext): Router {
  const router = express.Router();
  // A refused form (too large, too many fields, compressed) gets the same shopper's page as any other failure.
  const pageForError = hostedErrors(ctx);
  const form = formBody({ limitBytes: 16 * 1024, parameterLimit: 100 }, (req, res, err) =>
    pageForError(err, req, res, () => {}),
  );

  router.get('/hosted/approve', async (req, res, next) => {
    try {
      const token = query(req, 'token');
      const view = token
        ? await viewApproval(ctx, token, publicBaseUrl(req, ctx.config))
        : ({ state: 'missing' } as const);
      if (view.state !== 'pending') return gone(req, res, view.state);
      sendPage(
        res,
        200,
        `Approve ${view.approval.app_name}`,
        html`${approvalPage({
          appName: view.approval.app_name,
          clientUserId: view.approval.client_user_id,
          rules: view.rules,
          stores: view.stores,
          allowed: view.allowed,
          token,
          formToken: view.formToken,
          expiresAt: view.approval.expires_at,
          passkey: view.passkey,
        })}${sandboxNote(view.approval.env)}`,
        {
          formTargets: [new URL(view.approval.redirect_uri).origin],
          ...(needsScript(view.passkey) ? { scripts: [PASSKEY_SCRIPT_PATH] } : {}),
        },
      );
    } catch (err) {
      next(err);
    }
  });

  router.post('/hosted/approve', form, async (req, res, next) => {
    try {
      const decision = field(req, 'decision');
      if (decision !== 'approve' && decision !== 'decline') {
        return shopperPage(
          req,
          res,
          400,
          'Choose approve or decline',
          'The form was sent without a decision.',
        );
      }
      const out = await decideApproval(ctx, {
        token: field(req, 'token'),
        formToken: field(req, 'form_token'),
        approve: decision === 'approve',
        connect: fields(req, 'connect'),
        passkey: field(req, 'passkey'),
        baseUrl: publicBaseUrl(req, ctx.config),
      });
      if (out.state === 'passkey_refused') {
        return shopperPage(
          req,
          res,
          403,
          'Your passkey was not accepted',
          `${out.reason} Nothing was approved. Go back to the app and start again.`,
        );
      }
      if (out.state !== 'redirect') return gone(req, res, out.state);
      res.set('Cache-Control', 'no-store').redirect(303, out.location);
    } catch (err) {
      next(err);
    }
  });

  // The hosted pages' one script, from this origin, so their CSP never names another.
  router.get(PASSKEY_SCRIPT_PATH, (_req, res) => {
    res
      .set({
        'Content-Type': 'text/javascript; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-cache',
      })
      .send(PASSKEY_SCRIPT);
  });

  router.get('/hosted/confirm', async (req, res, next) => {
    try {
      const token = query(req, 'token');
      const view = token
        ? await viewConfirmation(ctx, token, publicBaseUrl(req, ctx.config))
        : ({ state: 'done' } as const);
      if (view.state !== 'pending') {
        return shopperPage(
          req,
          res,
          410,
          'Nothing to confirm',
          'This order no longer needs your confirmation.',
        );
      }
      sendPage(
        res,
        200,
        `Confirm your order at ${view.merchant.name}`,
        html`${confirmPage({ ...view, token })}${sandboxNote(pageEnv(req))}`,
        needsScript(view.passkey) ? { scripts: [PASSKEY_SCRIPT_PATH] } : {},
      );
    } catch (err) {
      next(err);
    }
  });

  router.post('/hosted/confirm', form, async (req, res, next) => {
    try {
      const decision = field(req, 'decision');
      if (decision !== 'approve' && decision !== 'decline') {
        return shopperPage(
          req,
          res,
          400,
          'Choose confirm or do not buy',
          'The form was sent without a decision.',
        );
      }
      const out = await decideConfirmation(ctx, {
        token: field(req, 'token'),
        formToken: field(req, 'form_token'),
        approve: decision === 'approve',
        passkey: field(req, 'passkey'),
        baseUrl: publicBaseUrl(req, ctx.config),
      });
      if (out.state === 'passkey_missing') {
        return shopperPage(
          req,
          res,
          403,
          'A passkey is needed',
          'Confirming a total this large needs your passkey, and you have not created one. Nothing was bought. Go back to the app: it can send you through its approval page again, where you create one.',
        );
      }
      if (out.state === 'passkey_refused') {
        return shopperPage(
          req,
          res,
          403,
          'Your passkey did not confirm this order',
          `${out.reason} Nothing was bought. Open the link from the app again and confirm with your passkey.`,
        );
      }
      if (out.state === 'confirmed') {
        const page = confirmedPage({ ...out, env: pageEnv(req) });
        return sendPage(res, 200, page.title, page.body);
      }
      if (out.state === 'declined')
        return shopperPage(req, res, 200, 'Order not placed', 'Nothing was bought. You can close this page.');
      if (out.state === 'stale_form') return gone(req, res, 'stale_form');
      shopperPage(req, res, 410, 'Nothing to confirm', 'This order no longer needs your confirmation.');
    } catch (err) {
      next(err);
    }
  });

  router.get(PAY_SCRIPT_PATH, (_req, res) => {
    res
      .set({
        'Content-Type': 'text/javascript; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-cache',
      })
      .send(PAY_SCRIPT);
  });

  const nothingToPay = (req: Request, res: Response) =>
    shopperPage(req, res, 410, 'Nothing to pay', 'This order no longer waits for your payment.');

  router.get('/hosted/pay', async (req, res, next) => {
    try {
      const token = query(req, 'token');
      const view = token ? await viewCardPayment(ctx, token) : ({ state: 'done' } as const);
      if (view.state !== 'pending') return nothingToPay(req, res);
      sendPage(
        res,
        200,
        `Pay ${view.merchant.name}`,
        html`${payPage({ ...view, token })}${sandboxNote(pageEnv(req))}`,
        { scripts: [PAY_SCRIPT_PATH], connectTo: view.tokenizer.origin },
      );
    } catch (err) {
      next(err);
    }
  });

  router.post('/hosted/pay', form, async (req, res, next) => {
    try {
      // Only the pay page itself posts here. A browser marks a form another site submits
      // `Sec-Fetch-Site: cross-site`: refused before anything is read, so a page elsewhere that
      // learnt a pay link cannot make the buyer's browser pay with a token of its choosing.
      if (req.get('sec-fetch-site') === 'cross-site') {
        return shopperPage(
          req,
          res,
          403,
          'Not sent from the pay page',
          'This payment was sent by another site, not by the pay page. Nothing was bought. Open the link from the app again.',
        );
      }
      const paymentToken = field(req, 'payment_token');
      if (!paymentToken || !isPaymentToken(paymentToken)) {
        return shopperPage(
          req,
          res,
          400,
          'Your card was not sent',
          "The page did not get a token for your card from the store's payment provider. Nothing was bought. Open the link from the app again.",
        );
      }
      const card = cardDisplay(field(req, 'display_brand'), field(req, 'display_last4'));
      const out = await payByCard(ctx, {
        token: field(req, 'token'),
        formToken: field(req, 'form_token'),
        paymentToken,
        ...(card ? { card } : {}),
      });
      if (out.state === 'stale_form') return gone(req, res, 'stale_form');
      if (out.state === 'done') return nothingToPay(req, res);
      const page = paidPage({ ...out, env: pageEnv(req) });
      return sendPage(res, 200, page.title, page.body);
    } catch (err) {
      next(err);
    }
  });

  // Keeps the hosted pages' own HTML 404 from turning into the JSON API's, in any spelling of the
  // prefix the router itself would match.
  router.all(/^\/hosted(\/.*)?$/i, (req, res) =>
    shopperPage(
      req,
      res,
      404,
      'Page not found',
      'This page does not exist. Go back to the app and start again.',
    ),
  );
  router.use(hostedErrors(ctx));
  return router;
}
