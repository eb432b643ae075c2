import net from 'node:net';

/** Far more than a loopback socket's buffers: the server has read it all only if it kept reading. */
const SEND_BYTES = 64 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 0x20);

/**
 * Sends `head` (the request line and headers, each ending in CRLF), then a body of spaces: with
 * `Content-Length: 1000000000` declared, or chunked (no length). It writes up to 64 MiB of it.
 * 'closed' when the server ends the connection before taking all of that; 'drained' when it took
 * every byte, i.e. it kept reading a body it had no use for. `status` is the answer's status line.
 */
export function sendHugeBody(
  url: string,
  head: string,
  framing: 'declared' | 'chunked' = 'declared',
): Promise<{ outcome: 'closed' | 'drained'; status: string }> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let answer = '';
    let settled = false;
    const settle = (outcome: 'closed' | 'drained') => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ outcome, status: answer.split('\r\n')[0] ?? '' });
    };
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    socket.on('end', () => settle('closed'));
    socket.on('close', () => settle('closed'));
    socket.on('error', () => settle('closed'));
    const length = framing === 'chunked' ? 'Transfer-Encoding: chunked' : 'Content-Length: 1000000000';
    socket.write(`${head}${length}\r\n\r\n`);
    const piece =
      framing === 'chunked'
        ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')])
        : CHUNK;
    // One piece per turn of the event loop, as a client busy uploading writes: the server (in this
    // same process) answers and closes between two writes, and the next write meets whatever the
    // close sent. A reset (RST) fails that write and destroys the socket before the answer that
    // came first is read: the status comes back empty. A clean close (FIN) is read as 'end'.
    let sent = 0;
    const pump = () => {
      if (settled) return;
      if (sent >= SEND_BYTES) return void socket.write('', () => settle('drained'));
      sent += CHUNK.length;
      if (socket.write(piece)) setImmediate(pump);
      else socket.once('drain', pump);
    };
    pump();
  });
}

/**
 * Sends `head`, then a chunked body of SEND_BYTES that ends (the last chunk), then closes its
 * side, writing on after the server's answer and FIN as an uploading client does. `ended` is
 * 'closed' when the server read what came and closed cleanly, 'reset' when it closed with bytes
 * unread (the RST a client still writing may meet before it reads the answer).
 */
export function sendBodyThenClose(
  url: string,
  head: string,
): Promise<{ status: string; ended: 'closed' | 'reset' }> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.allowHalfOpen = true;
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', (hadError) =>
      resolve({ status: answer.split('\r\n')[0] ?? '', ended: hadError ? 'reset' : 'closed' }),
    );
    socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
    const piece = Buffer.concat([
      Buffer.from(`${CHUNK.length.toString(16)}\r\n`),
      CHUNK,
      Buffer.from('\r\n'),
    ]);
    let sent = 0;
    const pump = () => {
      if (socket.destroyed) return;
      if (sent >= SEND_BYTES) return void socket.end('0\r\n\r\n');
      sent += CHUNK.length;
      if (socket.write(piece)) setImmediate(pump);
      else socket.once('drain', pump);
    };
    pump();
  });
}
