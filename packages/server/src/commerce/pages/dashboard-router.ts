import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { AppError } from '../../platform/errors.js';
import { createRouter } from '../../platform/http/index.js';
import { apiKeyName } from '../routes/dashboard.js';
import { createCommerceApiKey, DEFAULT_ACCOUNT_ID, listApiKeys, revokeApiKey } from '../services/api-keys.js';
import {
  addEndpoint,
  type DashboardContext,
  listDeliveries,
  resendEvent,
  sendTest,
} from '../services/dashboard.js';
import { listEndpoints, removeEndpoint } from '../services/webhook-endpoints.js';
import { type Html, html, sendPage } from './html.js';

const back = (res: Response, notice: { ok?: string; error?: string }) => {
  const q = new URLSearchParams(notice as Record<string, string>).toString();
  res.redirect(303, `/dashboard${q ? `?${q}` : ''}`);
};

const param = (req: Request, name: string) => String(req.params[name] ?? '');

/** The dashboard's forms post back to it, so its Referer may go there (see sendPage). */
const page = (res: Response, status: number, title: string, body: Html) =>
  sendPage(res, status, title, body, { wide: true, referrerPolicy: 'same-origin' });

/**
 * Simple server-rendered pages over the dashboard's services. Mounted at /dashboard behind
 * `guard` (local requests only, same origin), so every page and form under it is guarded by
 * the same match that routes it.
 */
export function dashboardRouter(ctx: DashboardContext, guard: RequestHandler): Router {
  const router = createRouter();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
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

  router.get('/', async (req, res, next) => {
    try {
      const endpoints = await listEndpoints(ctx, account);
      const deliveries = await listDeliveries(ctx, account, { limit: 50 });
      const keys = await listApiKeys(ctx.db, account);
      const ok = typeof req.query.ok === 'string' ? req.query.ok : '';
      const error = typeof req.query.error === 'string' ? req.query.error : '';
      page(
        res,
        200,
        'svc commerce dashboard',
        html`<h1>svc commerce dashboard</h1>
        ${ok ? html`<p role="status">${ok}</p>` : html``}
        ${error ? html`<p role="alert" class="error">${error}</p>` : html``}
        <h2>API keys</h2>
        <table id="api-keys"><thead><tr><th scope="col">Name</th><th scope="col">Environment</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
        <tbody>${keys.map(
          (
            k,
          ) => html`<tr><td>${k.name}</td><td>${k.env}</td><td><code>${k.prefix}</code></td><td>${k.created_at}</td>
            <td>${k.last_used_at ?? '-'}</td><td>${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}</td><td>${
              k.revoked_at
                ? html``
                : html`<form method="post" action="/dashboard/api-keys/${k.id}/revoke"><button type="submit">Revoke</button></form>`
            }</td></tr>`,
        )}</tbody></table>
        <h3>Create a key</h3>
        <form method="post" action="/dashboard/api-keys">
          <label for="key-name">Name (shown to people on the approval page)</label>
          <input id="key-name" name="name" required maxlength="100" size="30">
          <label for="key-env">Environment</label>
          <select id="key-env" name="env"><option value="sandbox">sandbox</option><option value="live">live</option></select>
          <button type="submit" class="primary">Create key</button>
        </form>
        <h2>Webhook endpoints</h2>
        <table id="endpoints"><thead><tr><th scope="col">Environment</th><th scope="col">URL</th><th scope="col">Secret</th><th scope="col">Actions</th></tr></thead>
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
        <table id="deliveries"><thead><tr><th scope="col">Event</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next retry</th><th scope="col"></th></tr></thead>
        <tbody>${deliveries.map(
          (
            d,
          ) => html`<tr><td>${d.event_type}<br><code>${d.event_id}</code></td><td><code>${d.url}</code></td><td>${d.status}</td>
            <td>${d.attempts.map((a) => html`<div>#${a.attempt} ${a.at}: ${a.response_status ?? ''} ${a.error ?? ''}</div>`)}</td>
            <td>${d.next_attempt_at ?? '-'}</td>
            <td><form method="post" action="/dashboard/events/${d.event_id}/resend">
              <input type="hidden" name="endpoint_id" value="${d.endpoint_id}"><button type="submit">Resend</button></form></td></tr>`,
        )}</tbody></table>`,
      );
    } catch (err) {
      next(err);
    }
  });

  router.post(
    '/endpoints',
    form,
    act(async (req) => {
      const env = req.body?.env === 'live' ? 'live' : 'sandbox';
      const e = await addEndpoint(ctx, account, env, String(req.body?.url ?? ''));
      return `Added ${e.url} (${env}).`;
    }),
  );
  router.post(
    '/endpoints/:id/remove',
    act(async (req) => {
      await removeEndpoint(ctx, account, param(req, 'id'));
      return 'Endpoint removed.';
    }),
  );
  router.post(
    '/endpoints/:id/test',
    act(async (req) => {
      const d = await sendTest(ctx, account, param(req, 'id'));
      const last = d?.attempts.at(-1);
      return last && !last.error
        ? `Test delivered (${last.response_status}).`
        : `Test failed: ${last?.error ?? 'unknown'}`;
    }),
  );
  router.post(
    '/events/:id/resend',
    form,
    act(async (req) => {
      const endpointId = typeof req.body?.endpoint_id === 'string' ? req.body.endpoint_id : undefined;
      const ds = await resendEvent(ctx, account, param(req, 'id'), endpointId);
      return `Resent to ${ds.length} endpoint(s).`;
    }),
  );
  router.post('/api-keys', form, async (req, res, next) => {
    const env = req.body?.env === 'live' ? 'live' : 'sandbox';
    const name = apiKeyName.safeParse(req.body?.name);
    if (!name.success) return back(res, { error: 'Give the key a name of 1 to 100 characters.' });
    try {
      const { key, record } = await createCommerceApiKey(ctx.db, ctx, { env, name: name.data });
      // The key is not stored, only its hash: this answer is the only time anyone sees it.
      page(
        res,
        201,
        'API key created',
        html`<h1>API key created</h1>
        <p role="status">Copy the key now: it is shown only this once. Only its hash is stored.</p>
        <p>${record.name} (${record.env})</p>
        <p><code id="new-key">${key}</code></p>
        <p><a href="/dashboard">Back to the dashboard</a></p>`,
      );
    } catch (err) {
      next(err);
    }
  });
  router.post(
    '/api-keys/:id/revoke',
    act(async (req) => {
      const k = await revokeApiKey(ctx.db, ctx, account, param(req, 'id'));
      return `Revoked ${k.name} (${k.prefix}...). Requests made with it now get 401.`;
    }),
  );

  const mounted = createRouter();
  mounted.use('/dashboard', guard, router);
  return mounted;
}
