import { createServer } from 'node:net';

/**
 * Returns a TCP port on 127.0.0.1 that was free a moment ago (listen on port 0, read, close).
 * Ports are inherently racy, so callers that bind later must retry on `EADDRINUSE`.
 */
export async function freePort(): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True when nothing accepts connections on 127.0.0.1:`port`. */
export async function isPortClosed(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return await new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}
