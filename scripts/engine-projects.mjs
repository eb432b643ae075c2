// The vitest projects whose tests start a server (in-process or the built `svc-server`), and so
// depend on the database engine: `npm test` runs them a second time with
// SVC_TEST_DATABASE=postgres, each test service on a fresh PostgreSQL database of its own
// (`@svc/server/testing`). The projects left out touch no database and run once:
//   client-core, client-core-fetch, webhooks   HTTP against msw fakes, loopback node:http
//                           servers of their own or plain functions, no svc server
//   app                     no tests of its own (the server's browser tests cover it)
//   example-mcp-config      writes MCP client config files
//   scripts                 the runner's own helpers
// scripts/test/engine-projects.test.mjs fails when a test that starts a server sits elsewhere.
export const ENGINE_PROJECTS = [
  'server',
  'commerce-client',
  'content-client',
  'example-commerce-checkout',
  'example-content-weekly-plan',
  'example-live-local',
  'example-live-ucp',
  'example-mcp-agent',
  'example-quickstarts',
  'example-webhook-receiver',
];

/**
 * The `--project` filters in vitest arguments (`--project x` or `--project=x`), and the
 * arguments without them.
 */
export function splitProjectFilters(args) {
  const projects = [];
  const others = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--project' && i + 1 < args.length) projects.push(args[++i]);
    else if (arg.startsWith('--project=')) projects.push(arg.slice('--project='.length));
    else others.push(arg);
  }
  return { projects, others };
}

/**
 * The projects the PostgreSQL pass runs for a run limited to `filters` (all engine projects when
 * there is none): the engine projects a filter names, `*` standing for any text as in vitest.
 */
export function postgresProjects(filters) {
  if (filters.length === 0) return ENGINE_PROJECTS;
  const matches = (name, filter) =>
    new RegExp(
      `^${filter
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    ).test(name);
  return ENGINE_PROJECTS.filter((name) => filters.some((f) => matches(name, f)));
}
