import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import { PLATFORM_SPECS } from './spec-validator.js';

/**
 * The Universal Commerce Protocol's published contract (../shared/platform-specs/ucp-2026-04-08/):
 * the REST OpenAPI for operations and their headers, the JSON schemas for bodies, and the
 * discovery profile schema.
 *
 * Request bodies: UCP writes one schema per resource and marks each field with `ucp_request`
 * (`omit`, `required`, `optional`, or per operation `{ create, update, complete }`). A request
 * schema for an operation is the resource schema with those marks applied: an omitted field must
 * not be sent, a required one must. Each operation gets its own copy of the schema files under
 * its own base URI (https://ucp.dev/<op>/schemas/…), so relative `$ref`s stay inside that copy.
 *
 * One fix of the published files: discovery/profile_schema.json declares the `$id`
 * https://ucp.dev/schemas/discovery/profile.json but refers to `../schemas/ucp.json` as if it sat
 * beside schemas/ (where it is in the repository). It is loaded as https://ucp.dev/discovery/profile.json.
 */
const ROOT = join(PLATFORM_SPECS, 'ucp-2026-04-08');
export type RequestOp = 'create' | 'update' | 'complete';
const OPS: RequestOp[] = ['create', 'update', 'complete'];

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return name.endsWith('.json') ? [path] : [];
  });
}

type Node = Record<string, unknown>;

/** Applies `ucp_request` marks for `op` throughout one schema document. */
function forRequest(node: unknown, op: RequestOp): unknown {
  if (Array.isArray(node)) return node.map((n) => forRequest(n, op));
  if (!node || typeof node !== 'object') return node;
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) out[k] = forRequest(v, op);
  const props = out.properties as Record<string, Node> | undefined;
  if (props && typeof props === 'object') {
    let required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    for (const [name, sub] of Object.entries(props)) {
      const mark = sub?.ucp_request;
      const mode = typeof mark === 'string' ? mark : (mark as Record<string, string> | undefined)?.[op];
      if (mode === 'omit') {
        props[name] = false as unknown as Node;
        required.delete(name);
      } else if (mode === 'required') required.add(name);
      else if (mode === 'optional') required.delete(name);
    }
    required = new Set([...required]);
    if (required.size > 0) out.required = [...required];
    else delete out.required;
  }
  return out;
}

const SCHEMAS_BASE = 'https://ucp.dev/schemas/';

function buildAjv() {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const files = jsonFiles(join(ROOT, 'schemas'));
  for (const file of files) {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Node;
    const id = `${SCHEMAS_BASE}${relative(join(ROOT, 'schemas'), file)}`;
    ajv.addSchema({ ...doc, $id: id });
    for (const op of OPS) {
      ajv.addSchema({
        ...(forRequest(doc, op) as Node),
        $id: id.replace(SCHEMAS_BASE, `https://ucp.dev/${op}/schemas/`),
      });
    }
  }
  const profile = JSON.parse(readFileSync(join(ROOT, 'discovery/profile_schema.json'), 'utf8')) as Node;
  ajv.addSchema({ ...profile, $id: 'https://ucp.dev/discovery/profile.json' });
  // The shared tokenization API: its relative $refs reach the schemas above from handlers/tokenization/.
  const tokenization = JSON.parse(
    readFileSync(join(ROOT, 'handlers/tokenization/openapi.json'), 'utf8'),
  ) as Node;
  ajv.addSchema({ ...tokenization, $id: TOKENIZATION_API });
  return ajv;
}

let ajv: Ajv2020 | null = null;
const compiled = new Map<string, ValidateFunction>();

function validatorFor(ref: string): ValidateFunction {
  ajv ??= buildAjv();
  let v = compiled.get(ref);
  if (!v) {
    v = ajv.getSchema(ref);
    if (!v) throw new Error(`no UCP schema at ${ref}`);
    compiled.set(ref, v);
  }
  return v;
}

/** The problems of `value` against the schema at `ref`, or an empty list. */
export function problems(ref: string, value: unknown): string[] {
  const v = validatorFor(ref);
  if (v(value)) return [];
  return (v.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

const TOKENIZATION_API = 'https://ucp.dev/handlers/tokenization/openapi.json';
const operationSchema = (path: string, part: string) =>
  `${TOKENIZATION_API}#/paths/~1${path}/post/${part}/content/application~1json/schema`;

/** Checkout with the fulfillment extension, the shape every checkout-sessions body takes here. */
const CHECKOUT_DEF = 'shopping/fulfillment.json#/$defs/dev.ucp.shopping.checkout';
export const SCHEMA = {
  checkoutRequest: (op: RequestOp) => `https://ucp.dev/${op}/schemas/${CHECKOUT_DEF}`,
  checkoutResponse: `${SCHEMAS_BASE}${CHECKOUT_DEF}`,
  errorResponse: `${SCHEMAS_BASE}shopping/types/error_response.json`,
  lookupRequest: `${SCHEMAS_BASE}shopping/catalog_lookup.json#/$defs/lookup_request`,
  lookupResponse: `${SCHEMAS_BASE}shopping/catalog_lookup.json#/$defs/lookup_response`,
  productRequest: `${SCHEMAS_BASE}shopping/catalog_lookup.json#/$defs/get_product_request`,
  productResponse: `${SCHEMAS_BASE}shopping/catalog_lookup.json#/$defs/get_product_response`,
  businessProfile: 'https://ucp.dev/discovery/profile.json#/$defs/business_profile',
  platformProfile: 'https://ucp.dev/discovery/profile.json#/$defs/platform_profile',
  tokenizeRequest: operationSchema('tokenize', 'requestBody'),
  tokenizeResponse: operationSchema('tokenize', 'responses/200'),
  detokenizeRequest: operationSchema('detokenize', 'requestBody'),
  detokenizeResponse: operationSchema('detokenize', 'responses/200'),
  cardCredential: `${SCHEMAS_BASE}shopping/types/card_credential.json`,
  /** The tokenization API's own address: a handler names it in `schema` to be a tokenization handler. */
  tokenizationApi: TOKENIZATION_API,
};

interface Param {
  name: string;
  in: string;
  required?: boolean;
  schema?: { format?: string };
}
const rest = JSON.parse(readFileSync(join(ROOT, 'services/shopping/rest.openapi.json'), 'utf8')) as {
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; parameters?: { $ref?: string }[]; requestBody?: { required?: boolean } }
    >
  >;
  components: { parameters: Record<string, Param> };
};

/** The REST operation for a method and path (relative to the endpoint), with its parameters resolved. */
export function operationFor(method: string, path: string) {
  for (const [template, ops] of Object.entries(rest.paths)) {
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const op = ops[method.toLowerCase()];
    if (op && re.test(path)) {
      const params = (op.parameters ?? []).map((p) =>
        p.$ref ? (rest.components.parameters[p.$ref.split('/').pop() as string] as Param) : (p as Param),
      );
      return { operationId: op.operationId, params, bodyRequired: op.requestBody?.required === true };
    }
  }
  return null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** RFC 8941 dictionary with the profile member, pointing at /.well-known/ucp (the OpenAPI's words). */
const UCP_AGENT = /(?:^|,\s*)profile="(https?:\/\/[^"]+\/\.well-known\/ucp)"(?:\s*[,;]|$)/;

/** Header problems of a request to `operation`: each required header present, uuids and UCP-Agent well formed. */
export function headerProblems(
  params: Param[],
  headers: Record<string, string | string[] | undefined>,
): string[] {
  const out: string[] = [];
  for (const p of params.filter((p) => p.in === 'header')) {
    const value = headers[p.name.toLowerCase()];
    if (value === undefined) {
      if (p.required) out.push(`header ${p.name} is required`);
      continue;
    }
    const text = Array.isArray(value) ? value.join(',') : value;
    if (p.schema?.format === 'uuid' && !UUID.test(text)) out.push(`header ${p.name} must be a uuid`);
    if (p.name === 'UCP-Agent' && !UCP_AGENT.test(text))
      out.push(`header UCP-Agent must be profile="…/.well-known/ucp"`);
  }
  return out;
}

export const agentProfileUrl = (header: string) => UCP_AGENT.exec(header)?.[1] ?? null;
