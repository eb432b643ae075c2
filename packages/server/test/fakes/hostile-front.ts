import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server put in front of a platform fake (or the model fake) at the URL the service is
 * configured with: it passes every request through, except one the test scripts, which it answers
 * the way a hostile or broken platform could. The fake behind it stays the real contract (and
 * still takes effect when `forward` is set, as a platform that stored the post and then sent junk).
 */

export type HostileAnswer =
  /** 200 declaring `Content-Length: bytes`, then a first 64 KiB and nothing more (it never ends). */
  | { kind: 'declared'; bytes: number }
  /** 200, chunked, 64 KiB chunks for as long as the reader takes them. */
  | { kind: 'endless' }
  /** 200 with this text (deep nesting, large JSON) as `application/json`. */
  | { kind: 'text'; text: string }
  /** The fake's own JSON answer with `pad` added under the key `padding` (large but valid). */
  | { kind: 'padded'; pad: unknown };

export interface HostileFront {
  /** `base` (a fake's URL, with any path such as `/v1`) as reached through this front. */
  forwardTo(base: string): string;
  /**
   * The next request to `route` (`METHOD /path`; a `:name` segment matches any one segment, as in
   * `POST /:version/:user/media_publish`) gets `answer`. With `forward`, the request is first
   * passed to the fake, so it takes effect (`padded` always forwards).
   */
  script(route: string, answer: HostileAnswer, opts?: { forward?: boolean }): void;
  /**
   * What happened to the scripted answers, in order: bytes written, and `closed`, which settles
   * once the connection is gone (true when the reader hung up before the answer was complete).
   */
  served: { route: string; bytesSent: number; closed: Promise<boolean> }[];
  close(): Promise<void>;
}

/** What the front writes at a time. */
export const CHUNK_BYTES = 64 * 1024;
const CHUNK = Buffer.alloc(CHUNK_BYTES, 'a');

/** `METHOD /a/:b/c` as a pattern of whole segments. */
const routePattern = (route: string) =>
  new RegExp(
    `^${route
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}$`,
  );

export async function startHostileFront(): Promise<HostileFront> {
  let target = '';
  const scripted: { route: string; answer: HostileAnswer; forward: boolean }[] = [];
  const served: HostileFront['served'] = [];
  const open = new Set<ServerResponse>();

  const pass = async (method: string, path: string, headers: Record<string, string>, body: Buffer) => {
    const res = await fetch(`${target}${path}`, {
      method,
      headers,
      ...(body.length ? { body: new Uint8Array(body) } : {}),
      redirect: 'manual',
    });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  /** Writes chunks while the reader takes them, until it closes the connection. */
  const pour = (res: ServerResponse, record: HostileFront['served'][number]) => {
    const more = () => {
      while (!res.destroyed) {
        record.bytesSent += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', more);
      }
    };
    more();
  };

  const server = createServer(async (req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const path = req.url ?? '/';
    const route = `${req.method} ${path.split('?')[0]}`;
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        (e): e is [string, string] =>
          typeof e[1] === 'string' && !['host', 'content-length', 'connection'].includes(e[0]),
      ),
    );
    const at = scripted.findIndex((s) => routePattern(s.route).test(route));
    const script = at >= 0 ? scripted.splice(at, 1)[0] : undefined;
    if (!script) {
      const answer = await pass(req.method ?? 'GET', path, headers, body);
      const out: Record<string, string> = {};
      answer.headers.forEach((v, k) => {
        if (
          !['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)
        )
          out[k] = v;
      });
      res.writeHead(answer.status, out).end(answer.bytes);
      return;
    }
    const record = {
      route,
      bytesSent: 0,
      closed: new Promise<boolean>((resolve) => res.on('close', () => resolve(!res.writableFinished))),
    };
    served.push(record);
    const { answer } = script;
    let fakeJson: unknown = null;
    if (script.forward || answer.kind === 'padded') {
      const passed = await pass(req.method ?? 'GET', path, headers, body);
      // Only `padded` reads the fake's answer: LinkedIn's 201 to a post has no body at all.
      if (answer.kind === 'padded') fakeJson = JSON.parse(passed.bytes.toString('utf8'));
    }
    if (answer.kind === 'declared') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(answer.bytes) });
      record.bytesSent = CHUNK.length;
      res.write(CHUNK);
    } else if (answer.kind === 'endless') {
      res.writeHead(200, { 'content-type': 'application/json' });
      pour(res, record);
    } else {
      const text =
        answer.kind === 'text'
          ? answer.text
          : JSON.stringify({ ...(fakeJson as object), padding: answer.pad });
      record.bytesSent = Buffer.byteLength(text);
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    forwardTo(base) {
      const url = new URL(base);
      target = url.origin;
      return `${origin}${url.pathname.replace(/\/$/, '')}`;
    },
    script: (route, answer, opts) => scripted.push({ route, answer, forward: opts?.forward ?? false }),
    served,
    close: () =>
      new Promise((r) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
