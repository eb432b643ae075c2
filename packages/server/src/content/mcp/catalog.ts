import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RawJson } from './jsonrpc.js';
import type { AnyTool } from './tool.js';

/** A tool as dispatch sees it: its declaration, and what `tools/list` sends for it. */
export interface CompiledTool {
  spec: AnyTool;
  /**
   * Exactly what `tools/list` sends for this tool. Built on first read, then kept: a call needs
   * only `spec`, and converting the schemas is what made the catalog cost a start.
   */
  readonly definition: Tool;
}

/**
 * How many tool definitions (zod → JSON Schema) this process has built, for the test that a
 * start builds none and two first `tools/list` calls build each once. A counter, not a timing.
 */
let definitionsBuilt = 0;
export const catalogDefinitionsBuilt = () => definitionsBuilt;

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

function definitionOf(spec: AnyTool): Tool {
  definitionsBuilt++;
  const output = z.object({
    mode_label: z.string().describe('The mode the result was produced in, e.g. "(sandbox · simulated)".'),
    ...spec.output,
  });
  return {
    name: spec.name,
    title: spec.title,
    description: `${spec.description} Needs the '${spec.scope}' scope.`,
    inputSchema: jsonSchema(spec.input, 'input') as Tool['inputSchema'],
    outputSchema: openObjects(jsonSchema(output, 'output')) as Tool['outputSchema'],
    annotations: annotationsOf(spec),
  };
}

export function compileTool(spec: AnyTool): CompiledTool {
  let definition: Tool | null = null;
  return {
    spec,
    get definition() {
      definition ??= definitionOf(spec);
      return definition;
    },
  };
}

/**
 * Once per app: the tool map for dispatch (names checked at start, so a tool declared twice
 * still stops the start), and the `tools/list` result, built and serialised on its first use.
 * Converting every tool's schemas was 5-7 % of a cold start (as the OpenAPI documents were
 * before `lazyOpenApi`); most starts never see a `tools/list`. The build is synchronous, so two
 * first `tools/list` requests cannot both run it: the second finds it done.
 */
export function compileCatalog(specs: AnyTool[]) {
  const tools = new Map<string, CompiledTool>();
  for (const spec of specs) {
    if (tools.has(spec.name)) throw new Error(`MCP tool '${spec.name}' is declared twice`);
    tools.set(spec.name, compileTool(spec));
  }
  let list: { result: { tools: Tool[] }; json: RawJson } | null = null;
  const built = () => {
    if (!list) {
      const result = { tools: [...tools.values()].map((t) => t.definition) };
      list = { result, json: new RawJson(JSON.stringify(result)) };
    }
    return list;
  };
  return {
    tools,
    /** The `tools/list` result. */
    listResult: () => built().result,
    /** The same, serialised once, as `tools/list` sends it. */
    listJson: () => built().json,
  };
}
