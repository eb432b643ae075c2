import { z } from 'zod';

/** Every named content schema registers here; the ids become OpenAPI `components.schemas`. */
export const contentRegistry = z.registry<{ id?: string; description?: string }>();

export function named<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  contentRegistry.add(schema as z.ZodType, description ? { id, description } : { id });
  return schema;
}
