// The sender's self-help on the admin pages in a real browser (Debian's chromium through
// playwright-core), over a real gateway: a burst of refusals from one network, all counted on the
// refused page, and a self-test's report. Screenshots go under docs/screenshots/ on request
// (UPDATE_SCREENSHOTS=1), else under test-results/.
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRefusalRecords } from '../../src/intake/refusal-records.js';
import { SelfTestReports } from '../../src/intake/self-test-reports.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { fixture, PROCESSING_ADDRESS, REPO, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startTestRelay, type TestRelay } from '../helpers/notice-relay.js';
import { SmtpClient, sendOnce } from '../helpers/smtp-client.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) process.stdout.write(`${CHROMIUM} not found (Debian package chromium): the browser test is skipped\n`);
const SHOTS = resolve(REPO, process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/screenshots' : 'test-results/screenshots');
const LOGIN = { username: 'admin', password: 'browser-test-password' };

let gateway: TestGateway;
let relay: TestRelay;
let ops: OpsServer;
let browser: Browser | undefined;
let selfTestId = '';

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  relay = await startTestRelay();
  gateway = await startTestGateway({ worker: true, env: { NOTICE_SMTP_URL: relay.url, NOTICE_FROM: 'no-reply@intake.example' } });
  const records = openRefusalRecords(gateway.redis, { ...gateway.config, redisPrefix: gateway.prefix });
  const reports = new SelfTestReports(gateway.redis, gateway.prefix);
  ops = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent' }),
    registry: createMetrics().registry,
    redis: gateway.redis,
    queue: gateway.queue,
    store: gateway.store,
    dashboard: { user: LOGIN.username, password: LOGIN.password },
    refusals: records.rules,
    authRefusals: records.authentication,
    refusalCounts: records.counts,
    selfTestReports: reports,
  });
  const { client } = await SmtpClient.open(gateway.port);
  for (let i = 0; i < 30; i += 1) {
    const raw = Buffer.from(
      fixture('unsigned.eml')
        .toString('latin1')
        .replace(/^Message-ID: .*$/im, `Message-ID: <burst-${i}@acme.example>`),
      'latin1',
    );
    await client.send({ from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw });
    await client.command('RSET');
  }
  await client.quit();
  await sendOnce(gateway.port, { from: 'bounce@fail.acme.example', to: [PROCESSING_ADDRESS], raw: fixture('spf-fail.eml') });
  await sendOnce(gateway.port, { from: 'letters@acme.example', to: [PROCESSING_ADDRESS], raw: fixture('no-pdf.eml') });
  const good = await sendOnce(gateway.port, {
    from: 'bounce@acme.example',
    to: ['selftest@intake.example'],
    raw: fixture('dkim-pass-aligned.eml'),
  });
  selfTestId = /self-test (st[0-9a-f]{24})/.exec(good.data?.text ?? '')?.[1] ?? '';
  await sendOnce(gateway.port, { from: 'bounce@fail.acme.example', to: ['selftest@intake.example'], raw: fixture('spf-fail.eml') });
  await relay.waitForMessages(1);
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking'] });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await ops?.close();
  await gateway?.close();
  await relay?.close();
});

describe('self-help on the admin pages', () => {
  it.skipIf(!HAVE_CHROMIUM)('shows every refusal counted on the refused page, and a self-test report', async () => {
    const context = await browser?.newContext({ httpCredentials: LOGIN, viewport: { width: 1280, height: 800 } });
    const page = await context?.newPage();
    if (page === undefined) throw new Error('no browser page');
    await page.goto(`${ops.url}/admin/intakes/refused`);
    const first = page.locator('table.refusal-counts tbody tr').first();
    expect(await first.locator('td').first().textContent()).toBe('30');
    await page.screenshot({ path: resolve(SHOTS, 'refused-counts.png'), fullPage: true });
    await page.goto(`${ops.url}/admin/self-tests`);
    expect(await page.locator('table.self-tests tbody tr').count()).toBe(2);
    await page.goto(`${ops.url}/admin/self-tests/${selfTestId}`);
    const text = (await page.locator('pre.report').textContent()) ?? '';
    expect(text).toContain('ready: a letter like this one would be accepted');
    expect(text).toContain('Report: mailed to letters@acme.example');
    await page.screenshot({ path: resolve(SHOTS, 'self-test-report.png'), fullPage: true });
    await context?.close();
  });

  it.skipIf(!HAVE_CHROMIUM)('runs the queue dashboard under the Content-Security-Policy without a violation', async () => {
    const context = await browser?.newContext({ httpCredentials: LOGIN, viewport: { width: 1280, height: 800 } });
    const page = await context?.newPage();
    if (page === undefined) throw new Error('no browser page');
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    await page.goto(`${ops.url}/admin/queues`);
    // the dashboard's bundle ran: its loading placeholder gave way to the queues
    await page.locator('#root').filter({ hasNotText: 'Loading' }).waitFor({ timeout: 15_000 });
    expect(violations).toEqual([]);
    await context?.close();
  });
});
