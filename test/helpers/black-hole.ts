// A TCP server that accepts connections and never answers: a store (or any service) that hangs.
import { createServer, type Socket } from 'node:net';

export interface BlackHole {
  readonly port: number;
  close(): Promise<void>;
}

export async function startBlackHole(): Promise<BlackHole> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
