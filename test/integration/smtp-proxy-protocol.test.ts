// Behind a TCP load balancer (SMTP_USE_PROXY=true) the client address comes from the PROXY
// header, so SPF judges the real sender, not the balancer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { SmtpClient } from '../helpers/smtp-client.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { SMTP_USE_PROXY: 'true' } });
});
afterAll(async () => {
  await gateway.close();
});

async function sendBehindProxy(clientIp: string) {
  const { client } = await SmtpClient.open(gateway.port, '127.0.0.1', undefined, `PROXY TCP4 ${clientIp} 127.0.0.1 40000 25`);
  const replies = await client.send({ from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw: fixture('dkim-pass-aligned.eml') });
  await client.quit();
  return replies.data;
}

describe('the PROXY protocol', () => {
  it('judges SPF by the address in the PROXY header', async () => {
    expect((await sendBehindProxy('203.0.113.9'))?.text).toMatch(/^550 5\.7\.1 .*SPF fail for acme\.example from 203\.0\.113\.9/);
  });

  it('accepts the same message from an address SPF allows', async () => {
    expect((await sendBehindProxy('127.0.0.1'))?.text).toMatch(/^250 2\.0\.0 /);
  });
});
