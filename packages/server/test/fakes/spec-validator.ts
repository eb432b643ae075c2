import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import { defaultLocations, ensurePlatformSpecs } from '../../../../scripts/platform-specs.mjs';

/**
 * The platforms' published contracts (see scripts/platform-specs.json for where each comes from).
 * Fakes validate every request our adapters send, and every response they give, against them, so
 * a test fails when either side leaves the contract. This is the one place tests locate them:
 * the verified cache inside the clone, .cache/platform-specs/. The test run's globalSetup fills it
 * from the local mirror (../shared/platform-specs) when needed; the check here is the same one,
 * for the fakes' other users (examples/live-local), and throws one line naming `pnpm specs:fetch`
 * when the documents are missing or changed.
 */
const where = defaultLocations();
ensurePlatformSpecs(where);
export const PLATFORM_SPECS = where.cache;

/**
 * Some documents still use OpenAPI 3.0's `nullable: true` inside 3.1 schemas. Read it as JSON
 * Schema means it: `type: [t, 'null']`, or an extra `null` branch where there is no `type`.
 */
function withNullableAsType(node: unknown): Record<string, unknown> {
  const walk = (n: unknown): unknown => {
    if (Array.isArray(n)) return n.map(walk);
    if (!n || typeof n !== 'object') return n;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(n)) out[k] = walk(v);
    if (out.nullable === true) {
      delete out.nullable;
      if (typeof out.type === 'string') out.type = [out.type, 'null'];
      else if (Array.isArray(out.type)) out.type = [...new Set([...out.type, 'null'])];
      else return { anyOf: [out, { type: 'null' }] };
    } else if (out.nullable === false) delete out.nullable;
    return out;
  };
  return walk(node) as Record<string, unknown>;
}

export interface SpecValidator {
  /** Validates `value` against `#/components/schemas/<name>`; the error names every problem. */
  check(name: string, value: unknown, what: string): void;
}

/** One validator per OpenAPI document, compiled lazily per schema and reused across tests. */
export function openApiValidator(relativePath: string): SpecValidator {
  const doc = withNullableAsType(JSON.parse(readFileSync(join(PLATFORM_SPECS, relativePath), 'utf8')));
  // strict: false ignores OpenAPI's own keywords (discriminator, x-…, nullable, example).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const id = `spec:${relativePath}`;
  ajv.addSchema({ ...doc, $id: id });
  const compiled = new Map<string, ValidateFunction>();
  return {
    check(name, value, what) {
      let validate = compiled.get(name);
      if (!validate) {
        validate = ajv.getSchema(`${id}#/components/schemas/${name}`);
        if (!validate) throw new Error(`${relativePath} has no schema ${name}`);
        compiled.set(name, validate);
      }
      if (!validate(value)) {
        const problems = (validate.errors ?? [])
          .slice(0, 8)
          .map((e) => `${e.instancePath || '/'} ${e.message}`)
          .join('; ');
        throw new Error(`${what} does not follow ${relativePath} (${name}): ${problems}`);
      }
    },
  };
}
