import { z } from 'zod';
import { AppError } from '../errors.js';

type Where = 'params' | 'query' | 'body';

/** What the request held at an issue's path (zod 4 leaves `input` out of its issues). */
function at(value: unknown, path: PropertyKey[]): unknown {
  let v = value;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

function describe(issue: z.core.$ZodIssue, where: Where, value: unknown): { message: string; param: string } {
  const path = issue.path.map(String);
  const field = path.join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys;
    const fields = keys.map((k) => (field ? `${field}.${k}` : k));
    return {
      message: `Unknown ${keys.length === 1 ? 'field' : 'fields'} ${fields.map((k) => `'${k}'`).join(', ')} in the ${where === 'body' ? 'request body' : where}.`,
      param: fields[0] ?? where,
    };
  }
  const name = field || where;
  // "Required" only when the field is absent: `?limit=abc` coerces to NaN, an invalid_type
  // whose input zod does not report, and must say what is wrong with the value instead.
  if (issue.code === 'invalid_type' && at(value, issue.path) === undefined) {
    return { message: `'${name}' is required.`, param: name };
  }
  return { message: `'${name}' is invalid: ${issue.message}.`, param: name };
}

/** Validates one part of the request and turns the first problem into a 400 that names the field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where: Where): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  if (!first) throw new AppError(400, 'INVALID_REQUEST', `The ${where} is invalid.`);
  const { message, param } = describe(first, where, value);
  const more = result.error.issues.length - 1;
  throw new AppError(
    400,
    'INVALID_REQUEST',
    more > 0 ? `${message} (${more} more ${more === 1 ? 'problem' : 'problems'})` : message,
    {
      param,
    },
  );
}

/**
 * A cheap stand-in for `schema.safeParse` on the hot path, or null when the schema is not one
 * it understands. It answers only "valid, and here is the output zod would have given"; on
 * anything else the caller runs zod, which builds the error, so every 400 stays word for word
 * the one zod's issues make. Understood: an object (strict or not) of plain strings whose only
 * checks are lengths, which is every path-parameter schema (`{ id: z.string().min(1) }`).
 * Anything more (a regex, a transform, a coercion, an optional field) keeps the zod path.
 */
export function quickCheck(schema: z.ZodType): ((value: unknown) => object | null) | null {
  if (!(schema instanceof z.ZodObject)) return null;
  const catchall = schema.def.catchall?._zod.def.type;
  if (catchall !== undefined && catchall !== 'never') return null;
  const fields: { key: string; min: number; max: number }[] = [];
  for (const [key, field] of Object.entries(schema.def.shape as Record<string, z.ZodType>)) {
    // Exactly z.string(): its subclasses (z.email(), z.uuid(), …) check formats.
    if (Object.getPrototypeOf(field) !== z.ZodString.prototype) return null;
    const def = field._zod.def as z.core.$ZodStringDef;
    if (def.type !== 'string' || def.coerce) return null;
    let min = 0;
    let max = Number.POSITIVE_INFINITY;
    for (const check of def.checks ?? []) {
      const c = check._zod.def as { check: string; minimum?: number; maximum?: number; length?: number };
      if (c.check === 'min_length' && typeof c.minimum === 'number') min = Math.max(min, c.minimum);
      else if (c.check === 'max_length' && typeof c.maximum === 'number') max = Math.min(max, c.maximum);
      else if (c.check === 'length_equals' && typeof c.length === 'number') {
        min = Math.max(min, c.length);
        max = Math.min(max, c.length);
      } else return null;
    }
    fields.push({ key, min, max });
  }
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const input = value as Record<string, unknown>;
    // Exactly the declared keys: an extra one is zod's to refuse (strict) or strip (plain).
    let count = 0;
    for (const key in input) {
      if (!Object.hasOwn(input, key)) return null;
      count++;
    }
    if (count !== fields.length) return null;
    const out: Record<string, string> = {};
    for (const { key, min, max } of fields) {
      const v = input[key];
      if (typeof v !== 'string' || v.length < min || v.length > max) return null;
      out[key] = v;
    }
    return out;
  };
}

/**
 * `validate` for one schema and one part of the request, built once per route: the quick check
 * first where the schema allows one, zod (and its error) otherwise.
 */
export function validator<S extends z.ZodType>(schema: S, where: Where): (value: unknown) => z.output<S> {
  const quick = quickCheck(schema);
  if (!quick) return (value) => validate(schema, value, where);
  return (value) => (quick(value) as z.output<S> | null) ?? validate(schema, value, where);
}

/** No body schema means "no body": only nothing or `{}` is accepted. */
export const emptyBody = z.strictObject({});
