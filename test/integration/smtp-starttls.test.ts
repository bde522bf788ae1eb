// STARTTLS is offered only with a real key and certificate, and then works end to end.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../helpers/certificate.js';
import { fixture, intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { SmtpClient } from '../helpers/smtp-client.js';

let gateway: TestGateway;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'letter-intake-tls-'));
  const { key, cert } = selfSignedCertificate(dir, 'mx', 'mx.intake.example');
  gateway = await startTestGateway({ env: { TLS_KEY_FILE: key, TLS_CERT_FILE: cert } });
});
afterAll(async () => {
  await gateway.close();
});

describe('STARTTLS with a configured certificate', () => {
  it('is offered in the EHLO reply', async () => {
    const { client } = await SmtpClient.open(gateway.port);
    const ehlo = await client.command('EHLO mta.acme.example');
    await client.quit();
    expect(ehlo.text).toContain('STARTTLS');
  });

  it('carries a message over TLS to 250', async () => {
    const transport = createTransport({
      host: '127.0.0.1',
      port: gateway.port,
      secure: false,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      name: 'mta.acme.example',
    });
    const info = await transport.sendMail({
      envelope: { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS] },
      raw: fixture('dkim-pass-aligned.eml'),
    });
    transport.close();
    expect(info.response).toMatch(/^250 2\.0\.0 queued as /);
    expect((await gateway.store.get(intakeIdOf(info.response)))?.state).toBe('queued');
  });
});
