import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection we chose to close goes on reading, and throwing away, after our answer. */
export const LINGER_MS = 2_000;

/**
 * The threat here is to our own answer. When we refuse a body the client is still sending (a 413
 * on a 1 GB upload, a 401 before the body is read), node sends the answer and then closes the
 * socket with the body's bytes unread. The kernel then sends a reset (RST), not a clean close, and a
 * client still writing meets the reset on its next write, often before it has read the answer: it
 * reports "connection reset" or EPIPE instead of the status that says what to fix. Browsers do this,
 * and so did our own test client, about one CI run in ten.
 *
 * Web servers linger for this (nginx's `lingering_close`, Apache's lingering close): send the
 * answer and a FIN, read and discard what still arrives for a short while so the client can read
 * the answer, then close. The linger is bounded: at most `lingerMs` after the answer, and ended
 * sooner when the client closes its side. Node ends a `Connection: close` response with
 * `socket.destroySoon()` (end, then destroy once the FIN is out, which is where the reset comes
 * from); this replaces it on this one socket.
 */
export function lingerBeforeClosing(socket: Socket, lingerMs = LINGER_MS): void {
  closing.add(socket);
  socket.destroySoon = function lingeringDestroySoon(this: Socket) {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), lingerMs);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    // The client has read what it wanted and closed: nothing left to wait for.
    this.once('end', () => this.destroy());
    // Discard, don't buffer: what still arrives is the body we refused.
    this.resume();
  };
}

/** Connections we have answered with `Connection: close`: no further request on them is served. */
const closing = new WeakSet<Socket>();

/**
 * The linger keeps node's HTTP parser reading, so a request pipelined behind the refused one would
 * still reach the routes for up to `lingerMs`: a POST's side effect done and never answered, and a
 * client that retries what it saw no answer to does it twice. HTTP/1.1 forbids serving it (we sent
 * `Connection: close`: RFC 9112 §9.6), so it is dropped unanswered. Wraps the server's request
 * listener.
 */
export function servingNoRequestAfterClose(listener: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!closing.has(req.socket)) return listener(req, res);
    // The refused body has ended (a new request began), so the linger has nothing left to throw
    // away, and each request parsed from here would be kept, unanswered, until the socket closes:
    // a client streaming tiny requests for the 2 s held 150-320 MB. The connection ends now
    // (pausing does not stop node's parser on this socket; closing does).
    req.socket.destroy();
  };
}
