// One raw HTTP/1.1 exchange over a TCP socket, for requests no HTTP client will send (a broken
// request line, an invalid header, a malformed URL): the bytes go out as written, and the whole
// answer is read until the server closes the connection.
import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export async function rawExchange(baseUrl: string, request: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.end(request);
  });
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: split < 0 ? '' : text.slice(split + 4) };
}

export interface FromAnswer {
  readonly status: number;
  readonly json: unknown;
}

/**
 * One JSON request sent from a chosen local address (any of 127.0.0.0/8 on loopback), to show
 * what the sandbox does with a caller whose address is or is not on a sender's allow-list.
 */
export function requestFrom(
  localAddress: string,
  url: string,
  options: { readonly method: string; readonly headers?: Readonly<Record<string, string>>; readonly body?: unknown },
): Promise<FromAnswer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Promise<FromAnswer>((resolve, reject) => {
    const req = request(url, { method: options.method, headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text === '' ? undefined : JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
