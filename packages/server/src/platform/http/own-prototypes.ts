import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { getOrBuild } from '../get-or-build.js';

/** The classes node:http builds each request and response of `app` with (createServer options). */
export interface NodeMessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

const made = new WeakMap<Express, NodeMessageClasses>();

/**
 * Request and response classes whose prototypes are `app`'s own, for the node:http server that
 * serves `app`.
 *
 * Why: express 5 moves every request and response onto its app's prototypes with
 * `Object.setPrototypeOf` (`app.handle`). On V8 a response moved that way does not share a hidden
 * class with the next one: every property node:http then adds to it (`writeHead`'s) makes a new
 * one, so each request leaves shape garbage behind and its objects are kept alive past two young
 * collections. That promoted about 10 KB per request to the old generation, which under 16 busy
 * connections grew to about four times the live heap before a full collection: 70-90 MB of the
 * server's peak RSS (docs/benchmarks/history.md, "Issue 20, seventh pass: memory"). Built with these
 * classes, a request already has the prototype express would give it, `setPrototypeOf` to the
 * same prototype changes nothing, and every response shares one hidden class.
 *
 * The app's prototypes are replaced by the classes' (same parent, same own properties: `app`), so
 * `req.app`, `res.locals` and every express method behave as before, on this server and on any
 * other that serves the same app. One pair per app, however many servers serve it.
 */
export function ownPrototypes(app: Express): NodeMessageClasses {
  return getOrBuild(made, app, classesFor);
}

function classesFor(app: Express): NodeMessageClasses {
  class Request extends IncomingMessage {}
  class Response extends ServerResponse {}
  app.request = adopt(app.request, Request.prototype);
  app.response = adopt(app.response, Response.prototype);
  return { IncomingMessage: Request, ServerResponse: Response } as NodeMessageClasses;
}

/** `target` in place of `prototype`: the same parent and the same own properties. */
function adopt<T extends object>(prototype: T, target: object): T {
  // The class's own constructor stays: node:http and instanceof checks see a real subclass.
  const { constructor: _, ...own } = Object.getOwnPropertyDescriptors(prototype) as PropertyDescriptorMap;
  Object.setPrototypeOf(target, Object.getPrototypeOf(prototype));
  Object.defineProperties(target, own);
  return target as T;
}
