// The error envelope on the errors the HTTP layer itself raises, before any route runs: a
// malformed URL, a path segment over the router's limit, a broken request line, an invalid
// header, an over-long URL and oversized headers. Each is sent as raw bytes over a socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange } from '../helpers/raw-http.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('sandbox envelope on the HTTP layer own errors', () => {
  let sandbox: TestSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  const host = (): string => new URL(sandbox.url).host;

  async function expectInvalidData(request: string, message: RegExp): Promise<void> {
    const answer = await rawExchange(sandbox.url, request);
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body)).toEqual({
      message: expect.stringMatching(message),
      statusCode: 400,
      errorCode: 'InvalidData',
      traceId: expect.stringMatching(UUID),
    });
  }

  it('answers a URL with broken percent-encoding with 400 InvalidData', async () => {
    await expectInvalidData(`GET /api/v1/letters/%zz HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`, /URL/);
  });

  it('answers a path segment longer than the router takes with 400 InvalidData', async () => {
    const id = 'a'.repeat(101);
    await expectInvalidData(`GET /api/v1/letters/${id} HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`, /longer than 100/);
  });

  it('answers a request line that is not HTTP with 400 InvalidData', async () => {
    await expectInvalidData('HELLO THERE\r\n\r\n', /not valid HTTP/);
  });

  it('answers a header name with a space in it with 400 InvalidData', async () => {
    await expectInvalidData(`GET /api/v1/letters HTTP/1.1\r\nHost: ${host()}\r\nBad Header: x\r\n\r\n`, /not valid HTTP/);
  });

  it('answers a URL longer than the header limit with 400 InvalidData', async () => {
    const path = `/api/v1/letters?q=${'a'.repeat(20_000)}`;
    await expectInvalidData(`GET ${path} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`, /larger than 16384 bytes/);
  });

  it('answers headers larger than the limit with 400 InvalidData', async () => {
    const headers = Array.from({ length: 40 }, (_, i) => `X-Filler-${i}: ${'b'.repeat(500)}`).join('\r\n');
    await expectInvalidData(`GET /api/v1/letters HTTP/1.1\r\nHost: ${host()}\r\n${headers}\r\n\r\n`, /larger than 16384 bytes/);
  });
});
