// The Sender API client over HTTPS, as in production: node:https through the client's own fetch
// (src/fast-paths/http-fetch.ts). A server on loopback with a certificate made for the test:
// untrusted, the call fails on the certificate and nothing reaches the server; trusted (the
// way an operator adds a private CA, NODE_EXTRA_CA_CERTS, in a process of its own), a large
// body arrives byte for byte, the answer comes back, and the connection is kept for the next call;
// trusted but reached under a name the certificate does not carry, the call fails.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFetch } from '../../src/fast-paths/http-fetch.js';
import { selfSignedCertificate } from '../helpers/certificate.js';

const REPO = resolve(import.meta.dirname, '../..');
let server: Server;
let url: string;
let certFile: string;
const received: { method: string; path: string; bodySha256: string; bodyBytes: number; socket: number }[] = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'letter-intake-api-tls-'));
  const tls = selfSignedCertificate(dir, 'api', '127.0.0.1');
  certFile = tls.cert;
  const sockets = new Map<object, number>();
  server = createServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size + 1);
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        bodySha256: createHash('sha256').update(body).digest('hex'),
        bodyBytes: body.length,
        socket: sockets.get(req.socket) ?? 0,
      });
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'l1', status: 'Draft' }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
});

/** POSTs through the compiled client's fetch (`npm test` builds first) in a process that trusts `certFile`. */
const run = (script: string, apiUrl: string) =>
  promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: certFile, API_URL: apiUrl },
  });

const CHILD = `
import { httpFetch } from ${JSON.stringify(join(REPO, 'dist/fast-paths/http-fetch.js'))};
const body = JSON.stringify({ title: 'x', base64Data: 'QUJD'.repeat(750_000) });
const out = [];
for (const path of ['/api/v1/letters', '/api/v1/letters/l1']) {
  const response = await httpFetch(process.env.API_URL + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  out.push({ status: response.status, json: await response.json() });
}
console.log(JSON.stringify(out));
`;

describe('the Sender API client over HTTPS', () => {
  it('refuses a server whose certificate it does not trust, before sending anything', async () => {
    const before = received.length;
    await expect(httpFetch(`${url}/api/v1/sessions`, { method: 'POST', body: '{}' })).rejects.toThrow(/self[- ]signed|certificate/i);
    expect(received.length).toBe(before);
  });

  it('sends a 3 MB body byte for byte to a trusted server, reads the answer, and keeps the connection', async () => {
    const before = received.length;
    const { stdout } = await run(CHILD, url);
    const body = JSON.stringify({ title: 'x', base64Data: 'QUJD'.repeat(750_000) });
    const sha = createHash('sha256').update(body).digest('hex');

    expect(JSON.parse(stdout)).toEqual([
      { status: 201, json: { id: 'l1', status: 'Draft' } },
      { status: 201, json: { id: 'l1', status: 'Draft' } },
    ]);
    const calls = received.slice(before);
    expect(calls.map((c) => [c.method, c.path, c.bodyBytes, c.bodySha256])).toEqual([
      ['POST', '/api/v1/letters', Buffer.byteLength(body), sha],
      ['POST', '/api/v1/letters/l1', Buffer.byteLength(body), sha],
    ]);
    expect(new Set(calls.map((c) => c.socket)).size).toBe(1);
  }, 60_000);

  it('refuses a trusted certificate reached under a name it does not carry', async () => {
    const before = received.length;
    const port = new URL(url).port;
    await expect(run(CHILD, `https://localhost:${port}`)).rejects.toThrow(/ERR_TLS_CERT_ALTNAME_INVALID/);
    expect(received.length).toBe(before);
  }, 60_000);
});
