import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AnyTool } from './tool.js';

/** A tool with everything that does not change per request worked out at start-up. */
export interface CompiledTool {
  spec: AnyTool;
  /** Exactly what `tools/list` sends for this tool. */
  definition: Tool;
}

/**
 * JSON Schema draft-07: the dialect the MCP SDK's client validator (Ajv) reads by default.
 * `io` picks the input view (defaults make a field optional) or the output view.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
}

/**
 * Output schemas describe what we send today without forbidding what we may add tomorrow:
 * a client that cached an older schema must not start failing on a new field.
 */
function openObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openObjects);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'additionalProperties' && v === false) continue;
    // zod states every int's safe-integer range; in an output schema it is noise.
    if ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = openObjects(v);
  }
  return out;
}

export function annotationsOf(spec: AnyTool): ToolAnnotations {
  const read = spec.scope === 'read';
  return {
    title: spec.title,
    readOnlyHint: read,
    // No tool deletes or overwrites: writes add ideas, versions, notes, runs or pending approvals.
    destructiveHint: false,
    idempotentHint: spec.idempotent ?? false,
    // Every tool works on this workspace's own data; none reaches out to the world.
    openWorldHint: false,
  };
}

export function compileTool(spec: AnyTool): CompiledTool {
  const output = z.object({
    mode_label: z.string().describe('The mode the result was produced in, e.g. "(sandbox · simulated)".'),
    ...spec.output,
  });
  return {
    spec,
    definition: {
      name: spec.name,
      title: spec.title,
      description: `${spec.description} Needs the '${spec.scope}' scope.`,
      inputSchema: jsonSchema(spec.input, 'input') as Tool['inputSchema'],
      outputSchema: openObjects(jsonSchema(output, 'output')) as Tool['outputSchema'],
      annotations: annotationsOf(spec),
    },
  };
}

/** Built once per app: the tool map for dispatch and the frozen `tools/list` result. */
export function compileCatalog(specs: AnyTool[]) {
  const tools = new Map<string, CompiledTool>();
  for (const spec of specs) {
    if (tools.has(spec.name)) throw new Error(`MCP tool '${spec.name}' is declared twice`);
    tools.set(spec.name, compileTool(spec));
  }
  const listResult = { tools: [...tools.values()].map((t) => t.definition) };
  return { tools, listResult };
}
