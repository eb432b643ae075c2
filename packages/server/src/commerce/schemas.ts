import { z } from 'zod';

/** Every named commerce schema registers here; the ids become OpenAPI `components.schemas`. */
export const commerceRegistry = z.registry<{ id?: string; description?: string }>();

export function named<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  commerceRegistry.add(schema as z.ZodType, description ? { id, description } : { id });
  return schema;
}
