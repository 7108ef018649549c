import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A test server listening on 127.0.0.1. */
export interface LocalServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  /** Drop open connections, stop listening, resolve once closed. */
  close(): Promise<void>;
}

/** Start `server` on a free port of 127.0.0.1. */
export async function listenLocal(server: Server): Promise<LocalServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
