import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server that counts the client's turns: each time the client sends
 * after the server has answered. A client that waits for each answer before its next message
 * takes a turn per message; one that writes several messages before reading takes one for them
 * all. Counted on the wire, not timed. The proxy runs in the test's own process, so whatever the
 * client writes in one turn of the event loop is in the socket before the proxy reads any of it.
 */
export async function turnCountingProxy(target: { host: string; port: number }) {
  let turns = 0;
  let answered = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.on('data', (chunk) => {
      if (answered) turns += 1;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      answered = true;
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    port,
    /** Turns since the last call. */
    take(): number {
      const n = turns;
      turns = 0;
      return n;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
