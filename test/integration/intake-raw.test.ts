// Behind the admin login, an intake's page opens each PDF inline (Content-Disposition set, the
// PDF checks' verdict beside it) and shows or downloads the raw message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { fixture, intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { sendOnce } from '../helpers/smtp-client.js';

let gateway: TestGateway;
let ops: OpsServer;
let id: string;
const AUTH = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` };

beforeAll(async () => {
  gateway = await startTestGateway({ worker: true });
  ops = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent' }),
    registry: createMetrics().registry,
    redis: gateway.redis,
    queue: gateway.queue,
    store: gateway.store,
    rawStore: gateway.rawStore,
    dashboard: { user: 'admin', password: 'pw' },
  });
  const replies = await sendOnce(gateway.port, {
    from: 'letters@acme.example',
    to: [PROCESSING_ADDRESS],
    raw: fixture('pdf-attachment.eml'),
  });
  id = intakeIdOf(replies.data?.text ?? '');
  expect((await gateway.settled(id)).state).toBe('submitted');
}, 60_000);

afterAll(async () => {
  await ops?.close();
  await gateway?.close();
});

describe('the raw message and PDFs of an intake', () => {
  it('links each PDF with its verdict, and the raw message, on the intake page', async () => {
    const html = await (await fetch(`${ops.url}/admin/intakes/${id}`, { headers: { ...AUTH, accept: 'text/html' } })).text();
    expect(html).toContain(`<a href="/admin/intakes/${id}/raw">view the raw message</a>`);
    expect(html).toContain(`<a href="/admin/intakes/${id}/raw?download=1">download it</a>`);
    expect(html).toMatch(new RegExp(`<li><a href="/admin/intakes/${id}/pdfs/1">[^<]+\\.pdf</a>: passed the PDF checks \\(1 page`));
  });

  it('opens the PDF inline with its file name, and the raw message inline or as a download', async () => {
    const pdf = await fetch(`${ops.url}/admin/intakes/${id}/pdfs/1`, { headers: AUTH });
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toMatch(/^inline; filename="[^"]+\.pdf"/);
    expect(pdf.headers.get('content-security-policy')).toBe("default-src 'none'; object-src 'self'; frame-ancestors 'none'");
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
    const raw = await fetch(`${ops.url}/admin/intakes/${id}/raw`, { headers: AUTH });
    expect(raw.headers.get('content-type')).toContain('text/plain');
    expect(await raw.text()).toMatch(/^Subject: /m);
    const download = await fetch(`${ops.url}/admin/intakes/${id}/raw?download=1`, { headers: AUTH });
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="${id}.eml"; filename*=UTF-8''${id}.eml`);
    expect((await fetch(`${ops.url}/admin/intakes/${id}/pdfs/2`, { headers: AUTH })).status).toBe(404);
  });

  it('asks for the login', async () => {
    expect((await fetch(`${ops.url}/admin/intakes/${id}/raw`)).status).toBe(401);
    expect((await fetch(`${ops.url}/admin/intakes/${id}/pdfs/1`)).status).toBe(401);
  });
});
