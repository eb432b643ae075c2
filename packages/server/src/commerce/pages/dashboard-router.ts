import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { AppError } from '../../platform/errors.js';
import { formBody } from '../../platform/http/body.js';
import { fromFrameworkError } from '../../platform/http/errors-middleware.js';
import { DEFAULT_ACCOUNT_ID } from '../services/api-keys.js';
import {
  addEndpoint,
  type DashboardContext,
  listDeliveries,
  resendEvent,
  sendTest,
} from '../services/dashboard.js';
import { listEndpoints, removeEndpoint } from '../services/webhook-endpoints.js';
import { html, sendPage } from './html.js';

const back = (res: Response, notice: { ok?: string; error?: string }) => {
  const q = new URLSearchParams(notice as Record<string, string>).toString();
  res.redirect(303, `/dashboard${q ? `?${q}` : ''}`);
};

const param = (req: Request, name: string) => String(req.params[name] ?? '');

/** Simple server-rendered pages over the dashboard's JSON routes' services. Local requests only. */
export function dashboardRouter(ctx: DashboardContext): Router {
  const router = express.Router();
  const refused = (res: Response, err: AppError) =>
    sendPage(
      res,
      err.status,
      'Request refused',
      html`<h1>Request refused</h1><p>${err.message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
    );
  const form = formBody({ limitBytes: 16 * 1024, parameterLimit: 20 }, (_req, res, err) => refused(res, err));
  const account = DEFAULT_ACCOUNT_ID;

  const act = (fn: (req: Request) => Promise<string>) => async (req: Request, res: Response) => {
    try {
      back(res, { ok: await fn(req) });
    } catch (err) {
      if (err instanceof AppError) return back(res, { error: err.message });
      ctx.logger.error({ err }, 'dashboard action failed');
      back(res, { error: 'Something went wrong; see the server log.' });
    }
  };

  router.get('/dashboard', async (req, res, next) => {
    try {
      const endpoints = await listEndpoints(ctx, account);
      const deliveries = await listDeliveries(ctx, account, { limit: 50 });
      const ok = typeof req.query.ok === 'string' ? req.query.ok : '';
      const error = typeof req.query.error === 'string' ? req.query.error : '';
      sendPage(
        res,
        200,
        'svc commerce dashboard',
        html`<h1>Webhooks</h1>
        ${ok ? html`<p role="status">${ok}</p>` : html``}
        ${error ? html`<p role="alert" class="error">${error}</p>` : html``}
        <h2>Endpoints</h2>
        <table><thead><tr><th scope="col">Environment</th><th scope="col">URL</th><th scope="col">Secret</th><th scope="col">Actions</th></tr></thead>
        <tbody>${endpoints.map(
          (e) => html`<tr><td>${e.env}</td><td><code>${e.url}</code></td><td><code>${e.secret}</code></td><td>
            <form method="post" action="/dashboard/endpoints/${e.id}/test"><button type="submit">Send test</button></form>
            <form method="post" action="/dashboard/endpoints/${e.id}/remove"><button type="submit">Remove</button></form>
          </td></tr>`,
        )}</tbody></table>
        <h2>Add an endpoint</h2>
        <form method="post" action="/dashboard/endpoints">
          <label for="env">Environment</label>
          <select id="env" name="env"><option value="sandbox">sandbox</option><option value="live">live</option></select>
          <label for="url">https URL</label> <input id="url" name="url" type="url" required size="50">
          <button type="submit" class="primary">Add</button>
        </form>
        <h2>Deliveries</h2>
        <table><thead><tr><th scope="col">Event</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next retry</th><th scope="col"></th></tr></thead>
        <tbody>${deliveries.map(
          (
            d,
          ) => html`<tr><td>${d.event_type}<br><code>${d.event_id}</code></td><td><code>${d.url}</code></td><td>${d.status}</td>
            <td>${d.attempts.map((a) => html`<div>#${a.attempt} ${a.at}: ${a.response_status ?? ''} ${a.error ?? ''}</div>`)}</td>
            <td>${d.next_attempt_at ?? '-'}</td>
            <td><form method="post" action="/dashboard/events/${d.event_id}/resend">
              <input type="hidden" name="endpoint_id" value="${d.endpoint_id}"><button type="submit">Resend</button></form></td></tr>`,
        )}</tbody></table>`,
        { wide: true },
      );
    } catch (err) {
      next(err);
    }
  });

  router.post(
    '/dashboard/endpoints',
    form,
    act(async (req) => {
      const env = req.body?.env === 'live' ? 'live' : 'sandbox';
      const e = await addEndpoint(ctx, account, env, String(req.body?.url ?? ''));
      return `Added ${e.url} (${env}).`;
    }),
  );
  router.post(
    '/dashboard/endpoints/:id/remove',
    act(async (req) => {
      await removeEndpoint(ctx, account, param(req, 'id'));
      return 'Endpoint removed.';
    }),
  );
  router.post(
    '/dashboard/endpoints/:id/test',
    act(async (req) => {
      const d = await sendTest(ctx, account, param(req, 'id'));
      const last = d?.attempts.at(-1);
      return last && !last.error
        ? `Test delivered (${last.response_status}).`
        : `Test failed: ${last?.error ?? 'unknown'}`;
    }),
  );
  router.post(
    '/dashboard/events/:id/resend',
    form,
    act(async (req) => {
      const endpointId = typeof req.body?.endpoint_id === 'string' ? req.body.endpoint_id : undefined;
      const ds = await resendEvent(ctx, account, param(req, 'id'), endpointId);
      return `Resent to ${ds.length} endpoint(s).`;
    }),
  );
  // A malformed percent-escape in an id (`/dashboard/endpoints/%ZZ/remove`) is an HTML 400 too.
  router.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    const known = err instanceof URIError ? fromFrameworkError(req, err) : null;
    if (known) return refused(res, known);
    next(err);
  });
  return router;
}
