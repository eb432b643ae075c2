import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomBase62 } from '../ids.js';
import { REQUEST_ID_HEADER } from './request-id.js';

type Answer = { status: number; reason: string; code: string; message: string };

/**
 * What Node's HTTP parser refuses before any of our handlers runs. Node's own answer is a bare
 * status line with no body, outside the error shape every client of ours parses; these are the
 * same statuses in that shape, with a request id like every other answer.
 */
function answerFor(code: string | undefined): Answer {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        code: 'HEADERS_TOO_LARGE',
        message:
          'The request line and headers are larger than 16 KiB. Send long values in the request body, not in the URL or headers.',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        reason: 'Request Timeout',
        code: 'REQUEST_TIMEOUT',
        message:
          'The request did not arrive in time (see the server timeouts in docs/operations.md); send it again.',
      };
    default:
      return {
        status: 400,
        reason: 'Bad Request',
        code: 'INVALID_REQUEST',
        message: `The request is not valid HTTP/1.1${code ? ` (${code})` : ''}.`,
      };
  }
}

/** Answers the parser's refusals in the documented error shape, then closes the connection. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection the client already dropped, or one whose response has started: nothing can
    // be said on it any more.
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
      ?.headersSent;
    if (err.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const a = answerFor(err.code);
    const requestId = `req_${randomBase62(20)}`;
    const body = JSON.stringify({ error: { code: a.code, message: a.message, request_id: requestId } });
    socket.end(
      `HTTP/1.1 ${a.status} ${a.reason}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
