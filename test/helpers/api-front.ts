// An HTTP front before the sandbox Sender API that can play a backend outage as a real API shows
// one: its authentication layer still refuses a call without a session (`401`, as always), while
// the login and every call with a session reach the dead backend (`503`). Outside an outage it
// passes every request through. It can also ask for a pause as a rate-limiting API does: `429`
// with Retry-After to every call with a session. It counts what reached it, by kind and time, so a
// test can say how many real calls met the API while the worker's circuit (or its hold) was on.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export type CallKind = 'sessionless' | 'login' | 'letter';

export interface FrontCall {
  readonly at: number;
  readonly kind: CallKind;
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

export interface ApiFront {
  readonly url: string;
  /** Where requests go outside an outage (the sandbox's base URL). */
  target: string;
  /** While true: 401 to a call without a session, 503 to the login and every other call. */
  backendDown: boolean;
  /** While set: 429 TooManyRequests with `Retry-After: <seconds>` to every call with a session. */
  retryAfterSeconds: number | undefined;
  readonly calls: readonly FrontCall[];
  close(): Promise<void>;
}

function kindOf(req: IncomingMessage, path: string): CallKind {
  if (path.startsWith('/api/v1/auth/login')) return 'login';
  return req.headers['x-session'] === undefined ? 'sessionless' : 'letter';
}

export async function startApiFront(): Promise<ApiFront> {
  const calls: FrontCall[] = [];
  const front: { target: string; backendDown: boolean; retryAfterSeconds: number | undefined } = {
    target: '',
    backendDown: false,
    retryAfterSeconds: undefined,
  };
  const answer = (res: ServerResponse, status: number, errorCode: string, headers: Record<string, string> = {}): void => {
    const body = JSON.stringify({ statusCode: status, errorCode, message: 'backend outage (test front)', traceId: 'front' });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const kind = kindOf(req, path);
    const record = (status: number): void => void calls.push({ at: Date.now(), kind, method: req.method ?? '', path, status });
    if (front.backendDown) {
      req.resume();
      const status = kind === 'sessionless' ? 401 : 503;
      record(status);
      answer(res, status, status === 401 ? 'InvalidSession' : 'ServiceUnavailable');
      return;
    }
    if (front.retryAfterSeconds !== undefined && kind === 'letter') {
      req.resume();
      record(429);
      answer(res, 429, 'TooManyRequests', { 'retry-after': String(front.retryAfterSeconds) });
      return;
    }
    const upstream = new URL(req.url ?? '/', front.target);
    const proxied = httpRequest(upstream, { method: req.method, headers: { ...req.headers, host: upstream.host } }, (up) => {
      record(up.statusCode ?? 502);
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    proxied.on('error', () => {
      record(502);
      answer(res, 502, 'UnexpectedError');
    });
    req.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the API front listens on no TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    get target() {
      return front.target;
    },
    set target(value: string) {
      front.target = value;
    },
    get backendDown() {
      return front.backendDown;
    },
    set backendDown(value: boolean) {
      front.backendDown = value;
    },
    get retryAfterSeconds() {
      return front.retryAfterSeconds;
    },
    set retryAfterSeconds(value: number | undefined) {
      front.retryAfterSeconds = value;
    },
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
