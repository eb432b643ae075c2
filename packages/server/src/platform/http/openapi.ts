import { z } from 'zod';
import { trimTrailingSlashes } from '../trim-end.js';
import type { AnyRoute } from './route.js';

type JsonSchema = Record<string, unknown>;

export interface OpenApiTag {
  name: string;
  description: string;
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
  servers?: { url: string; description?: string }[];
  /** Every tag a route may use, with what the group is for; when given, an undeclared tag is a bug. */
  tags?: readonly OpenApiTag[];
  /**
   * Error responses that every route of the service can give beyond the platform's own
   * (e.g. the content service's local-only gate), merged under each operation's `responses`.
   */
  serviceErrors?: (route: AnyRoute) => Record<number, string>;
  /** OpenAPI security scheme per auth name; an auth name that is missing here means "no auth". */
  securitySchemes: Record<string, JsonSchema>;
  /** Which security requirement(s) each route auth name maps to. */
  security: Record<string, Record<string, string[]>[]>;
  /** The registry whose `id`s become `components.schemas`. */
  registry: z.core.$ZodRegistry<{ id?: string }>;
  /** Top-level OpenAPI 3.1 `webhooks` (event payloads), signed with `webhookSecurity`. */
  webhooks?: Record<string, { summary: string; description?: string; schema: z.ZodType }>;
  webhookSecurity?: Record<string, string[]>[];
}

/**
 * The `servers` entry of a service's document: its public URL when one is configured, else the
 * address `svc-server start` listens on by default (a port of 0 means "any", so the default is shown).
 */
export function serviceServer(opts: {
  publicUrl: string | undefined;
  port: number;
  defaultPort: number;
  publicUrlSetting: string;
}): { url: string; description: string } {
  return opts.publicUrl
    ? { url: trimTrailingSlashes(opts.publicUrl), description: opts.publicUrlSetting }
    : {
        url: `http://127.0.0.1:${opts.port || opts.defaultPort}`,
        description: 'The default local address of `svc-server start`',
      };
}

/**
 * The errors the platform itself can give on a route, whatever its handler does: derived
 * from the route's declaration so the document cannot forget one (every route rejects
 * unknown query parameters, every route with an id in its path can miss, every POST honours
 * Idempotency-Key, every body is size-limited and JSON-only).
 */
export function platformErrors(route: AnyRoute): Record<number, string> {
  const hasBody = route.method !== 'get' && route.method !== 'delete';
  const errors: Record<number, string> = {
    400: hasBody
      ? 'INVALID_REQUEST (a path, query or body field is missing, unknown or invalid; `param` names it) or INVALID_JSON.'
      : 'INVALID_REQUEST: a path or query parameter is missing, unknown or invalid; `param` names it.',
  };
  if (route.path.includes('/:')) errors[404] = 'NOT_FOUND: no object with that id is visible to the caller.';
  if (route.method === 'post') {
    errors[409] =
      'IDEMPOTENCY_KEY_IN_USE: a request with the same Idempotency-Key is still running; retry shortly.';
  }
  if (hasBody) {
    errors[413] = 'PAYLOAD_TOO_LARGE: the body is larger than the server accepts.';
    errors[415] = "UNSUPPORTED_MEDIA_TYPE: send the body as 'Content-Type: application/json'.";
  }
  return errors;
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * Builds the OpenAPI 3.1 document from the route declarations. Named schemas (registered
 * with an `id`) become shared components; JSON Schema 2020-12 is OpenAPI 3.1's own dialect.
 */
export function buildOpenApi(routes: readonly AnyRoute[], info: OpenApiInfo): JsonSchema {
  const components: Record<string, JsonSchema> = {};

  const convert = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
    const json = z.toJSONSchema(schema, {
      metadata: info.registry,
      io,
      unrepresentable: 'any',
      target: 'draft-2020-12',
      override: keepGlobalMetadata,
    }) as JsonSchema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    delete json.$schema;
    const relink = (node: JsonSchema, names: ReadonlyMap<string, string>): JsonSchema =>
      JSON.parse(
        JSON.stringify(node).replace(
          /"#\/\$defs\/([^"]+)"/g,
          (_m, id: string) => `"#/components/schemas/${names.get(id) ?? id}"`,
        ),
      );
    // Compared as they would be stored (refs relinked), so an input schema identical to the
    // output one is shared instead of duplicated as `XInput`.
    const asStored = (id: string) => relink(defs[id] as JsonSchema, new Map());
    const rename = (id: string) =>
      io === 'input' && components[id] && !sameAs(components[id], asStored(id)) ? `${id}Input` : id;
    const names = new Map(Object.keys(defs).map((id) => [id, rename(id)]));
    for (const [id, def] of Object.entries(defs)) components[names.get(id) ?? id] = relink(def, names);
    return relink(json, names);
  };

  const declaredTags = info.tags ? new Set(info.tags.map((t) => t.name)) : null;
  // A route's own `errors` win over the generic wording for the same status.
  const errorsOf = (route: AnyRoute): Record<number, string> => ({
    ...platformErrors(route),
    ...info.serviceErrors?.(route),
    ...route.errors,
  });

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (route.hidden) continue;
    for (const tag of route.tags ?? []) {
      if (declaredTags && !declaredTags.has(tag))
        throw new Error(`Route ${route.operationId} uses the undeclared tag '${tag}'.`);
    }
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['path', route.params],
      ['query', route.query],
    ] as const) {
      if (!schema) continue;
      const json = convert(schema, 'input');
      const props = (json.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((json.required ?? []) as string[]);
      for (const [name, prop] of Object.entries(props)) {
        const { description, ...rest } = prop;
        parameters.push({
          name,
          in: where,
          required: where === 'path' || required.has(name),
          ...(description ? { description } : {}),
          schema: rest,
        });
      }
    }

    const successStatus = String(route.status ?? 200);
    const op: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.tags ? { tags: route.tags } : {}),
      ...(parameters.length ? { parameters } : {}),
      security: info.security[route.auth] ?? [],
      responses: {
        [successStatus]:
          successStatus === '204'
            ? { description: 'No content' }
            : {
                description: 'Success',
                content: { 'application/json': { schema: convert(route.response, 'output') } },
              },
        ...Object.fromEntries(
          Object.entries(errorsOf(route)).map(([status, description]) => [
            status,
            {
              description,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
            },
          ]),
        ),
        default: {
          description: 'Error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    };
    if (route.body && route.method !== 'get') {
      const mediaType = route.bodyType === 'multipart' ? 'multipart/form-data' : 'application/json';
      op.requestBody = { required: true, content: { [mediaType]: { schema: convert(route.body, 'input') } } };
    }
    const path = toOpenApiPath(route.path);
    paths[path] = { ...(paths[path] ?? {}), [route.method]: op };
  }

  const webhooks = Object.fromEntries(
    Object.entries(info.webhooks ?? {}).map(([name, hook]) => [
      name,
      {
        post: {
          operationId: webhookOperationId(name),
          summary: hook.summary,
          ...(hook.description ? { description: hook.description } : {}),
          tags: [WEBHOOK_TAG.name],
          security: info.webhookSecurity ?? [],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: convert(hook.schema, 'output') } },
          },
          responses: {
            '2XX': { description: 'Any 2xx within 10 seconds acknowledges the event.' },
            '4XX': {
              description: 'Any other status, a timeout or a redirect is a failure: the event is retried.',
            },
          },
        },
      },
    ]),
  );

  components.Error = errorSchema;
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      ...(info.description ? { description: info.description } : {}),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(info.servers ? { servers: info.servers } : {}),
    ...(info.tags ? { tags: [...info.tags, ...(Object.keys(webhooks).length ? [WEBHOOK_TAG] : [])] } : {}),
    paths,
    ...(Object.keys(webhooks).length ? { webhooks } : {}),
    components: { schemas: sortKeys(components), securitySchemes: info.securitySchemes },
  };
}

const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      properties: {
        code: { type: 'string', description: 'Stable, machine-readable error code.' },
        message: { type: 'string', description: 'What went wrong, for a person.' },
        param: { type: 'string', description: 'The request field the error is about, when there is one.' },
        request_id: { type: 'string', description: 'Same as the Service-Request-Id header.' },
      },
    },
  },
};

/**
 * `.describe()` and `.meta()` write to zod's global registry, but `metadata` points the
 * converter at the service's own registry (for component ids). Copy the global metadata
 * back so descriptions and examples still reach the document.
 */
function keepGlobalMetadata(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const meta = z.globalRegistry.get(ctx.zodSchema as z.ZodType);
  if (!meta) return;
  for (const [key, value] of Object.entries(meta)) {
    if (key !== 'id' && ctx.jsonSchema[key] === undefined) ctx.jsonSchema[key] = value;
  }
}

const WEBHOOK_TAG = {
  name: 'Webhook events',
  description: 'Events the service posts to your webhook endpoints, signed with the endpoint secret.',
};

/** `checkout.requires_user_action` → `checkoutRequiresUserActionEvent`. */
const webhookOperationId = (name: string) =>
  `${name.replace(/[._]([a-z])/g, (_m, c: string) => c.toUpperCase())}Event`;

const sameAs = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The document of `routes`, built on the first call and kept. Building it converts every route's
 * zod schemas to JSON Schema, which was about a fifth of a cold start's CPU, for a document that
 * most runs never serve; `buildOpenApi` is synchronous, so two first requests cannot both build it.
 */
export function lazyOpenApi(routes: readonly AnyRoute[], info: OpenApiInfo): () => JsonSchema {
  let doc: JsonSchema | null = null;
  return () => {
    doc ??= buildOpenApi(routes, info);
    return doc;
  };
}

/** `GET /v1/openapi.json`, serving the document `doc` gives (see `lazyOpenApi`). Left out of the document itself. */
export function openApiRoute(doc: () => JsonSchema, auth: string): AnyRoute {
  return {
    method: 'get',
    path: '/v1/openapi.json',
    auth,
    operationId: 'getOpenApi',
    summary: 'This OpenAPI 3.1 document.',
    hidden: true,
    response: z.record(z.string(), z.unknown()),
    handler: () => doc(),
  };
}
