// An HTTP proxy on loopback in front of a real server (the tests' s3rver) that answers every
// request 503 while told to fail: a store's transient error, on the wire, without touching the
// code under test.
import { createServer, request } from 'node:http';

export interface FlakyProxy {
  readonly endpoint: string;
  /** While true, every request is answered 503 SlowDown instead of forwarded. */
  failing: boolean;
  /** Requests answered 503 so far. */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startFlakyProxy(target: string): Promise<FlakyProxy> {
  const to = new URL(target);
  let refused = 0;
  const state = { failing: false };
  const server = createServer((req, res) => {
    if (state.failing) {
      refused += 1;
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
      );
      return;
    }
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
    get refused() {
      return refused;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
