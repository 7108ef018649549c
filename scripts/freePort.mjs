// A free TCP port on 127.0.0.1, for the servers the tests, benches and the demo start.
import { createServer } from 'node:net';

/** A port nobody listens on right now (on 127.0.0.1). */
export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}
