// Slow clients over real SMTP: the idle time-out alone lets a client that sends a byte now and
// then hold its slot and its memory reservation for ever. DATA has a deadline of its own
// (SMTP_DATA_TIMEOUT_MS) and so has the whole session (SMTP_SESSION_TIMEOUT_MS); past either the
// client is told 421 4.4.2 and the connection closes. And the per-address cap counts one client
// once: an IPv4-mapped address as its IPv4 address, an IPv6 client per /64. A message whose DATA
// has ended is answered before any deadline ends its session.
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { loadZoneResolver } from '../../src/auth/zone-resolver.js';
import type { DnsResolver } from '../../src/net/resolver.js';
import { FIXTURE_DIR, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { SmtpClient } from '../helpers/smtp-client.js';

const DATA_TIMEOUT_MS = 1500;
const SESSION_TIMEOUT_MS = 3000;
/** Each drip comes well inside the idle time-out, so only the deadlines can end these sessions. */
const DRIP_EVERY_MS = 250;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Authentication of a whole message may take this long: far past the session deadline. */
const AUTH_TIMEOUT_MS = 20_000;
const zone = loadZoneResolver(resolve(FIXTURE_DIR, 'zone.json'));
/** The fixture zone, except that the SPF record of acme.example is answered only once a session that asked for it is past its deadline. */
const slowForSpf: DnsResolver = async (name, rrtype) => {
  if (name === 'acme.example' && rrtype === 'TXT') await sleep(SESSION_TIMEOUT_MS + 1500);
  return zone(name, rrtype);
};

describe('deadlines for slow clients', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      resolver: slowForSpf,
      env: {
        AUTH_TIMEOUT_MS: String(AUTH_TIMEOUT_MS),
        SMTP_SOCKET_TIMEOUT_MS: '5000',
        SMTP_DATA_TIMEOUT_MS: String(DATA_TIMEOUT_MS),
        SMTP_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
      },
    });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('tells a client that trickles its DATA for longer than SMTP_DATA_TIMEOUT_MS 421 4.4.2 and closes', async () => {
    const { client } = await SmtpClient.open(gateway.port);
    await client.command(`EHLO ${FIXTURE_SESSION.helo}`);
    await client.command('MAIL FROM:<letters@acme.example>');
    await client.command(`RCPT TO:<${PROCESSING_ADDRESS}>`);
    expect((await client.command('DATA')).code).toBe(354);
    const reply = client.read();
    let drips = 0;
    // one header line a byte at a time, for up to 20 s: far past the DATA deadline
    while (!client.isClosed && drips < 80) {
      client.write(drips === 0 ? 'Subject: s' : 'l');
      drips += 1;
      await sleep(DRIP_EVERY_MS);
    }
    expect((await reply).text).toMatch(/^421 4\.4\.2 /);
    expect(client.isClosed).toBe(true);
    expect(drips).toBeLessThan(80);
  });

  it('tells a client that keeps its session busy for longer than SMTP_SESSION_TIMEOUT_MS 421 4.4.2 and closes', async () => {
    const { client } = await SmtpClient.open(gateway.port);
    await client.command(`EHLO ${FIXTURE_SESSION.helo}`);
    let last = { code: 250, text: '' };
    let commands = 0;
    // a NOOP now and then, for up to 20 s: never idle, far past the session deadline
    while (last.code === 250 && commands < 80) {
      last = await client.command('NOOP');
      commands += 1;
      await sleep(DRIP_EVERY_MS);
    }
    const final = last.code === 250 ? await client.read() : last;
    expect(final.text).toMatch(/^421 4\.4\.2 /);
    expect(commands).toBeLessThan(80);
    await sleep(100);
    expect(client.isClosed).toBe(true);
  });

  it('answers a message whose acceptance outlasts SMTP_SESSION_TIMEOUT_MS, then tells the client 421 4.4.2', async () => {
    const raw = await signedLetter({ title: 'accepted past the session deadline' });
    const { client } = await SmtpClient.open(gateway.port);
    const replies = await client.send({ from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
    expect(replies.data?.text).toMatch(/^250 /);
    // the deadline passed while the message was being accepted: it applies once the reply is out
    expect((await client.read()).text).toMatch(/^421 4\.4\.2 session took too long/);
    await sleep(100);
    expect(client.isClosed).toBe(true);
  });
});

describe('the per-address connection cap behind a PROXY header', () => {
  const PER_IP = 2;
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { SMTP_USE_PROXY: 'true', SMTP_MAX_CLIENTS_PER_IP: String(PER_IP) } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const from = async (family: 'TCP4' | 'TCP6', address: string) => {
    const local = family === 'TCP4' ? '127.0.0.1' : '::1';
    return SmtpClient.open(gateway.port, '127.0.0.1', undefined, `PROXY ${family} ${address} ${local} 40000 25`);
  };

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it maps', async () => {
    const held = [await from('TCP4', '192.0.2.7'), await from('TCP4', '192.0.2.7')];
    const mapped = await from('TCP6', '::ffff:192.0.2.7');
    const other = await from('TCP4', '192.0.2.8');
    for (const h of [...held, mapped, other]) await h.client.quit();
    expect(held.map((h) => h.greeting.code)).toEqual([220, 220]);
    expect(mapped.greeting.text).toMatch(/^421 4\.7\.0 /);
    expect(other.greeting.code).toBe(220); // IPv4 is counted per /32
  });

  it('counts IPv6 clients per /64', async () => {
    const held = [await from('TCP6', '2001:db8:1:2::1'), await from('TCP6', '2001:db8:1:2::2')];
    const sameSubnet = await from('TCP6', '2001:db8:1:2:ffff:ffff:ffff:3');
    const nextSubnet = await from('TCP6', '2001:db8:1:3::1');
    for (const h of [...held, sameSubnet, nextSubnet]) await h.client.quit();
    expect(held.map((h) => h.greeting.code)).toEqual([220, 220]);
    expect(sameSubnet.greeting.text).toMatch(/^421 4\.7\.0 /);
    expect(nextSubnet.greeting.code).toBe(220);
  });
});
