// The few `node:http`, `node:https` and `node:zlib` shapes the Node transport uses, declared here
// rather than imported from @types/node: the core is type-checked without Node's globals, since it
// must run wherever fetch does (tsconfig.json), and these modules are reached only at run time.

export interface NodeHeaders {
  [name: string]: string | string[] | undefined;
}

export interface NodeEmitter {
  on(event: string, listener: (...args: never[]) => void): this;
  once(event: string, listener: (...args: never[]) => void): this;
}

export interface NodeReadable extends NodeEmitter {
  pipe<T extends NodeWritable>(destination: T): T;
  destroy(error?: Error): void;
}

export interface NodeWritable extends NodeEmitter {
  end(chunk?: Uint8Array | string): void;
}

export interface NodeIncoming extends NodeReadable {
  readonly statusCode?: number;
  readonly statusMessage?: string;
  /** Lower-cased names; a repeated header is joined with `, ` (`set-cookie` is an array). */
  readonly headers: NodeHeaders;
  /** Names as sent and values as sent, alternating, repeats kept. */
  readonly rawHeaders: string[];
  readonly complete: boolean;
}

export interface NodeRequest extends NodeWritable {
  destroy(error?: Error): void;
}

export interface NodeRequestOptions {
  method: string;
  headers: Record<string, string>;
}

export interface NodeHttp {
  request(url: string, options: NodeRequestOptions): NodeRequest;
}

export interface NodeZlib {
  createGunzip(options?: object): NodeReadable & NodeWritable;
  createInflate(options?: object): NodeReadable & NodeWritable;
  createBrotliDecompress(options?: object): NodeReadable & NodeWritable;
  constants: { Z_SYNC_FLUSH: number; BROTLI_OPERATION_FLUSH: number };
}

interface NodeProcess {
  release?: { name?: string };
  versions?: { node?: string };
  getBuiltinModule?: (id: string) => unknown;
}

/**
 * A Node built-in module, or undefined where there is none. `process.getBuiltinModule` (Node ≥
 * 20.16 / 22.3) is synchronous and invisible to bundlers: a browser, Workers or Deno bundle holds
 * no `node:` import, and the code path simply never runs there. Bun and Deno answer to
 * `release.name === 'node'` for compatibility; their own fetch is the one to use.
 */
export function nodeBuiltin<T>(id: string): T | undefined {
  const process = (globalThis as { process?: NodeProcess }).process;
  if (process?.release?.name !== 'node' || 'Bun' in globalThis || 'Deno' in globalThis) return undefined;
  return process.getBuiltinModule?.(id) as T | undefined;
}

/** `20.17.0`, for the User-Agent; empty outside Node. */
export function nodeVersion(): string {
  return (globalThis as { process?: NodeProcess }).process?.versions?.node ?? '';
}
