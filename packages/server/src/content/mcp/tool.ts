import { z } from 'zod';
import type { Caller, ContentContext } from '../context.js';
import type { Scope } from '../db/api-keys-store.js';

/**
 * One MCP tool, declared as data: its name, the scope it needs, a zod input schema (types,
 * bounds, defaults), the shape of its structured result, and `run`, which only calls content
 * services and words a one-line summary. Everything else (JSON Schemas, annotations, scope
 * checks, validation, the mode label, error results, the call log) is done once for all tools
 * in `catalog.ts` and `dispatch.ts`.
 */
export interface ToolSpec<I extends z.ZodObject, O extends z.ZodRawShape> {
  name: string;
  title: string;
  scope: Scope;
  /** What a model reads to choose the tool: what it does, what it returns, what it never does. */
  description: string;
  /** A strict object: unknown arguments are refused by name, not ignored. */
  input: I;
  /** The fields of `structuredContent` (the catalog adds `mode_label`). */
  output: O;
  /**
   * Same call, same effect. True for reads; every write makes something new (a version, an
   * idea, a run), so none of them is idempotent.
   */
  idempotent?: boolean;
  /**
   * `false`: `run` never reads the sandbox clock, so the call skips re-reading it (a round trip
   * on PostgreSQL) and `run` gets a clock that throws if read (`SandboxClock.unsynced`). Every
   * other tool re-reads it first: another instance may have advanced it.
   */
  readsTime?: false;
  run(
    ctx: ContentContext,
    args: z.output<I>,
    caller: Caller,
  ): Promise<{ summary: string; data: z.output<z.ZodObject<O>> }>;
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools of every input and output type.
export type AnyTool = ToolSpec<z.ZodObject<any>, z.ZodRawShape>;

/** Keeps each tool's `run` checked against its own input and output while the list stays uniform. */
export const defineTool = <I extends z.ZodObject, O extends z.ZodRawShape>(spec: ToolSpec<I, O>): AnyTool =>
  spec as unknown as AnyTool;

/** Ids in tool arguments: the same bounds as the REST API's path ids. */
export const Id = (what: string) => z.string().trim().min(1).max(100).describe(what);

/** Lists whose spec has no `limit` return at most this many items and say whether more exist. */
export const LIST_CAP = 50;

/** For a tool answer that is a constant of the build: callTool keeps its JSON (platform/deep-frozen.ts). */
export { deepFrozen } from '../../platform/deep-frozen.js';
export { plural } from '../text.js';
