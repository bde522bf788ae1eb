// Waits until a peer accepts connections on a loopback port (Haraka and Postfix start in the background).
import { connect } from 'node:net';

export async function untilListening(port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const up = await new Promise<boolean>((ok) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        ok(true);
      });
      socket.on('error', () => ok(false));
    });
    if (up) return;
    await new Promise((ok) => setTimeout(ok, 50));
  }
  throw new Error(`${what} did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}
