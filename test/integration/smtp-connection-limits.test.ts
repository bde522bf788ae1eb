// The per-IP connection cap over real SMTP: it counts the connections an address holds, however
// many others it opened and dropped on the way.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { SmtpClient } from '../helpers/smtp-client.js';

const PER_IP = 3;
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { SMTP_MAX_CLIENTS_PER_IP: String(PER_IP) } });
});
afterAll(async () => {
  await gateway.close();
});

/** Connects and hangs up before the greeting: smtp-server closes it before onConnect runs. */
async function dropBeforeGreeting(localAddress: string): Promise<void> {
  const socket = connect({ port: gateway.port, host: '127.0.0.1', localAddress });
  socket.on('error', () => {});
  await new Promise<void>((ok) => socket.once('connect', () => ok()));
  socket.destroy();
  await new Promise<void>((ok) => socket.once('close', () => ok()));
}

describe('the per-IP connection cap', () => {
  it('does not wear down when connections close before they were counted', async () => {
    const address = '127.0.0.51';
    const held = await Promise.all(Array.from({ length: PER_IP }, () => SmtpClient.open(gateway.port, '127.0.0.1', address)));
    expect(held.map((h) => h.greeting.code)).toEqual(Array.from({ length: PER_IP }, () => 220));
    for (let i = 0; i < 2 * PER_IP; i += 1) await dropBeforeGreeting(address);
    await new Promise((r) => setTimeout(r, 100)); // onClose runs on the next turn
    const extra = await SmtpClient.open(gateway.port, '127.0.0.1', address);
    await extra.client.quit();
    for (const h of held) await h.client.quit();
    expect(extra.greeting.text).toMatch(/^421 4\.7\.0 too many connections from your address/);
  });

  it('frees the address once its connections are gone', async () => {
    const address = '127.0.0.52';
    const held = await Promise.all(Array.from({ length: PER_IP }, () => SmtpClient.open(gateway.port, '127.0.0.1', address)));
    for (const h of held) await h.client.quit();
    await new Promise((r) => setTimeout(r, 100));
    const again = await SmtpClient.open(gateway.port, '127.0.0.1', address);
    await again.client.quit();
    expect(again.greeting.code).toBe(220);
  });
});
