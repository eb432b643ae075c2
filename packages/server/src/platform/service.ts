import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import type { Config } from '../config.js';
import type { Clock } from './clock.js';
import type { SqlDatabase } from './db/sql.js';
import { answerClientErrors } from './http/client-errors.js';
import { servingNoRequestAfterClose } from './http/lingering-close.js';
import { ownPrototypes } from './http/own-prototypes.js';
import type { Ids } from './ids.js';
import type { Logger } from './logger.js';

/** What every service is built from. Everything with side effects on time or randomness is injected. */
export interface ServiceDeps {
  config: Config;
  clock: Clock;
  ids: Ids;
  logger: Logger;
}

/** A built service: its express app, its OpenAPI document, and its lifecycle. */
export interface ServiceHandle {
  name: 'content' | 'commerce';
  app: Express;
  db: SqlDatabase;
  openapi: Record<string, unknown>;
  /** Starts background work (webhook dispatcher, schedulers). Not started by tests unless asked. */
  startBackground(): void;
  /**
   * Called as the stop begins, before the requests in flight are waited for: work that waits on an
   * outside party (X processing a GIF) gives up then, so a stop is not held for its whole wait, and
   * background work takes nothing new (commerce's webhook claims, content's passes and the posts a
   * running pass would publish next), so the drain does not lengthen the stop or leave work leased
   * to a process about to end.
   */
  stopping?(): void;
  /** Stops background work, waits for what is in flight to be recorded, and closes the database. */
  close(): Promise<void>;
}

export interface Listening {
  url: string;
  server: Server;
  /** Stops accepting connections, lets requests in flight finish, then closes the service. */
  stop(): Promise<void>;
}

/**
 * How long a client may take, so a slow or silent one cannot hold a connection for ever
 * (docs/operations.md, "Limits and timeouts"). Node checks them every `checkEveryMs`.
 */
export interface ServerTimeouts {
  /** The request line and headers must arrive within this time (else 408 and close). */
  headersTimeoutMs: number;
  /**
   * The whole request, body included, must arrive within this time (else 408 and close).
   * Generous because a media upload may be a 200 MB video on an ordinary uplink.
   */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  checkEveryMs: number;
}

export const DEFAULT_TIMEOUTS: ServerTimeouts = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 5_000,
  checkEveryMs: 5_000,
};

export function listen(
  handle: ServiceHandle,
  host: string,
  port: number,
  timeouts: Partial<ServerTimeouts> = {},
): Promise<Listening> {
  const t = { ...DEFAULT_TIMEOUTS, ...timeouts };
  return new Promise((resolve, reject) => {
    const server = createServer(
      {
        headersTimeout: t.headersTimeoutMs,
        requestTimeout: t.requestTimeoutMs,
        keepAliveTimeout: t.keepAliveTimeoutMs,
        connectionsCheckingInterval: t.checkEveryMs,
        // Requests made with the app's own prototypes: see ownPrototypes for the memory it saves.
        ...ownPrototypes(handle.app),
      },
      // A request pipelined behind one we answered with Connection: close is not served.
      servingNoRequestAfterClose(handle.app),
    );
    // Older Node 20 releases ignore the keepAliveTimeout option; the property always works.
    server.keepAliveTimeout = t.keepAliveTimeoutMs;
    answerClientErrors(server);
    server.listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      const addr = server.address();
      const actualPort = typeof addr === 'object' && addr ? addr.port : port;
      const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
      let stopping: Promise<void> | undefined;
      resolve({
        url: `http://${shownHost}:${actualPort}`,
        server,
        stop: () => {
          stopping ??= new Promise<void>((done) => {
            handle.stopping?.();
            server.close(() => done());
            // Idle keep-alive sockets would otherwise hold close() open until they time out.
            server.closeIdleConnections();
          }).then(() => handle.close());
          return stopping;
        },
      });
    });
  });
}
