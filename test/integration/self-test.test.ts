// The self-test address: every check runs as for a letter. A pass is answered 250 naming the
// findings and a report follows to the From address (with each PDF's verdict, from the worker);
// a failure is answered 550 naming every check, and nothing is mailed. Never a letter. Only a
// passing self-test counts toward its From domain's hourly limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelfTestReports } from '../../src/intake/self-test-reports.js';
import { fixture, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startTestRelay, type TestRelay } from '../helpers/notice-relay.js';
import { SmtpClient, sendOnce } from '../helpers/smtp-client.js';

const SELF_TEST = 'selftest@intake.example';
let gateway: TestGateway;
let relay: TestRelay;

beforeAll(async () => {
  relay = await startTestRelay();
  gateway = await startTestGateway({
    worker: true,
    env: { NOTICE_SMTP_URL: relay.url, NOTICE_FROM: 'no-reply@intake.example' },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await relay?.close();
});

async function waitForReport(reports: SelfTestReports, id: string) {
  for (let i = 0; i < 200; i += 1) {
    const report = await reports.get(id);
    if (report?.state === 'reported') return report;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no report for ${id}`);
}

describe('the self-test address', () => {
  it('answers a good message 250 naming the findings, and mails a report with every check and each PDF verdict', async () => {
    const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [SELF_TEST], raw: fixture('dkim-pass-aligned.eml') });
    const reply = replies.data?.text ?? '';
    expect(reply).toMatch(/^250 2\.0\.0 self-test st[0-9a-f]{24}: SPF pass, DKIM pass \(acme\.example s=rsa2048\), aligned/);
    const id = /self-test (st[0-9a-f]{24})/.exec(reply)?.[1] ?? '';
    const report = await waitForReport(new SelfTestReports(gateway.redis, gateway.prefix), id);
    expect(report).toMatchObject({ outcome: 'pass', registered: true, rules: 'pass', mailed: 'mailed to letters@acme.example' });
    expect(report.pdfs?.[0]?.verdict).toMatch(/^pass: 1 page/);
    const [mail] = await relay.waitForMessages(1);
    expect(mail?.rcptTo).toEqual(['letters@acme.example']);
    const text = mail?.raw.toString('utf8') ?? '';
    expect(text).toContain('Subject: Self-test report: ready: a letter like this one would be accepted');
    expect(text).toMatch(/ {2}SPF {8}pass: SPF pass for acme\.example from 127\.0\.0\.1/);
    expect(text).toMatch(/ {2}DKIM {7}pass: DKIM pass for d=acme\.example s=rsa2048/);
    expect(text).toContain('Registered sender: yes');
    expect(text).toMatch(/\.pdf: pass: 1 page/);
    // never a letter: no intake for it
    expect(await gateway.store.get(id)).toBeUndefined();
    expect(await gateway.rawStore.getMarker('accepted', id)).toBeUndefined(); // nothing for recover to revive
    expect([...(await gateway.store.countByState()).values()].every((n) => n === 0)).toBe(true);
  });

  it('answers a message failing SPF 550 5.7.1 on several lines naming every check, and mails nothing', async () => {
    const before = relay.received.length;
    const replies = await sendOnce(gateway.port, { from: 'bounce@fail.acme.example', to: [SELF_TEST], raw: fixture('spf-fail.eml') });
    const reply = replies.data?.text ?? '';
    const lines = reply.split('\n');
    expect(lines[0]).toBe('550-5.7.1 self-test: failed SPF; nothing is mailed');
    expect(lines).toContain('550-5.7.1 SPF: fail: SPF fail for fail.acme.example from 127.0.0.1');
    expect(lines.at(-1)).toMatch(/^550 5\.7\.1 DKIM: pass/);
    expect(lines.every((l) => Buffer.byteLength(l) <= 510 && /^[\x20-\x7e]*$/.test(l))).toBe(true);
    expect(reply).not.toMatch(/regist/i);
    const [latest] = await new SelfTestReports(gateway.redis, gateway.prefix).list(1);
    expect(latest).toMatchObject({ outcome: 'fail', state: 'refused' });
    await new Promise((r) => setTimeout(r, 300));
    expect(relay.received.length).toBe(before);
  });

  it('refuses the second RCPT when an envelope names the self-test address and a processing address', async () => {
    const { client } = await SmtpClient.open(gateway.port);
    await client.command('EHLO client.example');
    await client.command('MAIL FROM:<bounce@acme.example>');
    expect((await client.command(`RCPT TO:<${PROCESSING_ADDRESS}>`)).code).toBe(250);
    expect((await client.command(`RCPT TO:<${SELF_TEST}>`)).text).toMatch(/^452 4\.5\.3 a self-test travels alone/);
    await client.command('RSET');
    await client.command('MAIL FROM:<bounce@acme.example>');
    expect((await client.command(`RCPT TO:<${SELF_TEST}>`)).code).toBe(250);
    expect((await client.command(`RCPT TO:<${PROCESSING_ADDRESS}>`)).text).toMatch(/^452 4\.5\.3/);
    await client.quit();
  });

  it("counts toward a From domain's hourly limit only the self-tests that passed: forged ones from many networks leave its owner's free", async () => {
    // 21 self-tests claiming letters@acme.example that fail SPF, 7 from each of three client
    // networks (each under its network's limit of 10): past the From domain's 20 if they counted.
    for (const network of ['127.0.1', '127.0.2', '127.0.3']) {
      for (let i = 0; i < 7; i += 1) {
        const { client } = await SmtpClient.open(gateway.port, '127.0.0.1', `${network}.1`);
        try {
          const replies = await client.send({ from: 'bounce@fail.acme.example', to: [SELF_TEST], raw: fixture('spf-fail.eml') });
          expect(replies.data?.code).toBe(550);
        } finally {
          await client.quit();
        }
      }
    }
    const owner = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [SELF_TEST], raw: fixture('dkim-pass-aligned.eml') });
    expect(owner.data?.text).toMatch(/^250 2\.0\.0 self-test st/);
  }, 60_000);
});
