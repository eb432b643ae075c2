import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { AppError } from '../../platform/errors.js';
import { formBody } from '../../platform/http/body.js';
import { fromFrameworkError } from '../../platform/http/errors-middleware.js';
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
import { checkoutTrail, listPurchases, orderTrail } from '../services/dashboard-purchases.js';
import { getEndpoint, listEndpoints, removeEndpoint } from '../services/webhook-endpoints.js';
import { filterFields, parseFilter } from './dashboard-filter.js';
import {
  checkoutPage,
  deliveriesTable,
  filterForm,
  type Notice,
  noticeLines,
  orderPage,
  purchasesSection,
  scrollTable,
  when,
} from './dashboard-views.js';
import { type Html, html, sendPage } from './html.js';
import { LOCAL_TIME_SCRIPT, LOCAL_TIME_SCRIPT_PATH } from './local-time-script.js';

/**
 * Where a form sends the person back to: the checkout or order page it was posted from (its
 * `return_to`, back at its deliveries), else the dashboard. Only those shapes are followed, so
 * the field can never redirect anywhere else.
 */
const TRAIL_PAGE = /^\/dashboard\/(checkouts|orders)\/[A-Za-z0-9_-]{1,100}$/;
const returnTo = (req: Request) => {
  const to = req.body?.return_to;
  return typeof to === 'string' && TRAIL_PAGE.test(to) ? to : '/dashboard';
};

const back = (res: Response, notice: Notice, to = '/dashboard') => {
  const q = new URLSearchParams(notice as Record<string, string>).toString();
  const at = to === '/dashboard' ? '' : '#webhook-deliveries';
  res.redirect(303, `${to}${q ? `?${q}` : ''}${at}`);
};

/** The notice a redirect after an action carries in its query (see `back`). */
const noticeOf = (req: Request): Notice => ({
  ok: typeof req.query.ok === 'string' ? req.query.ok : '',
  error: typeof req.query.error === 'string' ? req.query.error : '',
});

const param = (req: Request, name: string) => String(req.params[name] ?? '');

/** The dashboard's forms post back to it, so its Referer may go there (see sendPage). */
const page = (res: Response, status: number, title: string, body: Html) =>
  sendPage(res, status, title, body, {
    wide: true,
    referrerPolicy: 'same-origin',
    scripts: [LOCAL_TIME_SCRIPT_PATH],
  });

/**
 * Simple server-rendered pages over the dashboard's services. Mounted at /dashboard behind
 * `guard` (local requests only, same origin), so every page and form under it is guarded by
 * the same match that routes it.
 */
export function dashboardRouter(ctx: DashboardContext, guard: RequestHandler): Router {
  const router = createRouter();
  const refused = (res: Response, err: AppError) =>
    page(
      res,
      err.status,
      'Request refused',
      html`<h1>Request refused</h1><p>${err.message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
    );
  const form = formBody({ limitBytes: 16 * 1024, parameterLimit: 20 }, (_req, res, err) => refused(res, err));
  const account = DEFAULT_ACCOUNT_ID;

  const act = (fn: (req: Request) => Promise<string>) => async (req: Request, res: Response) => {
    const to = returnTo(req);
    try {
      back(res, { ok: await fn(req) }, to);
    } catch (err) {
      if (err instanceof AppError) return back(res, { error: err.message }, to);
      ctx.logger.error({ err }, 'dashboard action failed');
      back(res, { error: 'Something went wrong; see the server log.' }, to);
    }
  };

  router.get(LOCAL_TIME_SCRIPT_PATH.slice('/dashboard'.length), (_req, res) => {
    res
      .set({
        'Content-Type': 'text/javascript; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-cache',
      })
      .send(LOCAL_TIME_SCRIPT);
  });

  router.get('/', async (req, res, next) => {
    const fields = filterFields(req.query);
    const filter = parseFilter(fields);
    try {
      const endpoints = await listEndpoints(ctx, account);
      const deliveries = await listDeliveries(ctx, account, { limit: 50 });
      const keys = await listApiKeys(ctx.db, account);
      const purchases = filter.ok ? await listPurchases(ctx, account, filter.value) : null;
      page(
        res,
        filter.ok ? 200 : 400,
        'svc commerce dashboard',
        html`<h1>svc commerce dashboard</h1>
        ${noticeLines(noticeOf(req))}
        <p class="muted">Times are shown in <span data-zone>UTC</span>.</p>
        <h2 id="purchases-title">What was bought</h2>
        ${filterForm(fields)}
        ${filter.ok ? html`` : html`<p role="alert" class="error" id="filter-error">${filter.error}</p>`}
        ${purchases ? purchasesSection(purchases, (u) => `/dashboard?${new URLSearchParams({ user: u })}`) : html``}
        <h2>API keys</h2>
        ${scrollTable(
          'api-keys',
          'API keys',
          ['Name', 'Environment', 'Prefix', 'Created', 'Last used', 'Status', 'Actions'],
          keys.map(
            (
              k,
            ) => html`<tr><td>${k.name}</td><td>${k.env}</td><td><code>${k.prefix}</code></td><td>${when(k.created_at)}</td>
            <td>${when(k.last_used_at)}</td><td>${k.revoked_at ? html`revoked ${when(k.revoked_at)}` : 'active'}</td><td>${
              k.revoked_at
                ? html``
                : html`<form method="post" action="/dashboard/api-keys/${k.id}/revoke"><button type="submit">Revoke</button></form>`
            }</td></tr>`,
          ),
          'No keys yet.',
        )}
        <h3>Create a key</h3>
        <form method="post" action="/dashboard/api-keys">
          <label for="key-name">Name (shown to people on the approval page)</label>
          <input id="key-name" name="name" required maxlength="100" size="30">
          <label for="key-env">Environment</label>
          <select id="key-env" name="env"><option value="sandbox">sandbox</option><option value="live">live</option></select>
          <button type="submit" class="primary">Create key</button>
        </form>
        <h2>Webhook endpoints</h2>
        ${scrollTable(
          'endpoints',
          'Webhook endpoints',
          ['Environment', 'URL', 'Secret', 'Actions'],
          endpoints.map(
            (e) => html`<tr><td>${e.env}</td><td><code>${e.url}</code></td><td>
            <form method="post" action="/dashboard/endpoints/${e.id}/secret"><button type="submit" aria-label="Reveal secret of the ${e.env} endpoint ${e.url}">Reveal secret</button></form></td><td>
            <form method="post" action="/dashboard/endpoints/${e.id}/test"><button type="submit">Send test</button></form>
            <form method="post" action="/dashboard/endpoints/${e.id}/remove"><button type="submit">Remove</button></form>
          </td></tr>`,
          ),
          'No endpoints yet.',
        )}
        <h2>Add an endpoint</h2>
        <form method="post" action="/dashboard/endpoints">
          <label for="env">Environment</label>
          <select id="env" name="env"><option value="sandbox">sandbox</option><option value="live">live</option></select>
          <label for="url">https URL</label> <input id="url" name="url" type="url" required size="50">
          <button type="submit" class="primary">Add</button>
        </form>
        <h2>Deliveries</h2>
        ${deliveriesTable(deliveries, '/dashboard')}`,
      );
    } catch (err) {
      next(err);
    }
  });

  const trailPage = (
    kind: string,
    load: (id: string, notice: Notice) => Promise<{ title: string; body: Html }>,
  ) =>
    router.get(`/${kind}/:id`, async (req, res, next) => {
      try {
        const { title, body } = await load(param(req, 'id'), noticeOf(req));
        page(res, 200, title, body);
      } catch (err) {
        if (err instanceof AppError) return refused(res, err);
        next(err);
      }
    });
  trailPage('checkouts', async (id, notice) => ({
    title: `Checkout ${id}`,
    body: checkoutPage(await checkoutTrail(ctx, account, id), notice),
  }));
  trailPage('orders', async (id, notice) => ({
    title: `Order ${id}`,
    body: orderPage(await orderTrail(ctx, account, id), notice),
  }));

  // A secret is never in the dashboard's HTML until someone asks for it: a POST (so the CSRF
  // check applies and no link, prefetch or history entry can show it), answered with no-store.
  router.post('/endpoints/:id/secret', async (req, res, next) => {
    try {
      const endpoint = await getEndpoint(ctx, account, param(req, 'id'));
      page(
        res,
        200,
        'Webhook signing secret',
        html`<h1>Webhook signing secret</h1>
        <p>${endpoint.env} endpoint <code>${endpoint.url}</code></p>
        <p><code id="endpoint-secret">${endpoint.secret}</code></p>
        <p class="muted">Anyone with this secret can sign events your endpoint will trust. Keep it in your server's configuration, not in code or chat.</p>
        <p><a href="/dashboard">Back to the dashboard</a></p>`,
      );
    } catch (err) {
      if (err instanceof AppError) return refused(res, err);
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

  // A malformed percent-escape in an id (`/dashboard/endpoints/%ZZ/remove`) is an HTML 400 too.
  router.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    const known = err instanceof URIError ? fromFrameworkError(req, err) : null;
    if (known) return refused(res, known);
    next(err);
  });

  const mounted = createRouter();
  mounted.use('/dashboard', guard, router);
  return mounted;
}
