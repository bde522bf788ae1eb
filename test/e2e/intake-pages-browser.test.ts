// The intake pages in a real browser (Debian's chromium through playwright-core), over a real
// gateway: an operator logs in, searches a Message-ID, opens the intake that failed on the
// Sender API's InvalidCredentials, replays it, and the letter is created. Screenshots of each
// step are kept under docs/screenshots/ for docs/operating.md.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayIntake } from '../../src/intake/replay.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { FIXTURE_DIR, fixture, intakeIdOf, PROCESSING_ADDRESS, REPO, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { sendOnce } from '../helpers/smtp-client.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) process.stdout.write(`${CHROMIUM} not found (Debian package chromium): the browser test is skipped\n`);
// The copies docs/operating.md shows are rewritten only on request (UPDATE_SCREENSHOTS=1), so a test run leaves
// the tree clean; otherwise the screenshots go to test-results/.
const SHOTS = resolve(REPO, process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/screenshots' : 'test-results/screenshots');
const LOGIN = { username: 'admin', password: 'browser-test-password' };

let gateway: TestGateway;
let ops: OpsServer;
let browser: Browser | undefined;
let failedId: string;
let submittedId: string;
const failedMessageId =
  /^Message-ID: (.+)$/im.exec(readFileSync(resolve(FIXTURE_DIR, 'eml/dkim-pass-aligned.eml'), 'latin1'))?.[1]?.trim() ?? '';

async function send(file: string): Promise<string> {
  const replies = await sendOnce(gateway.port, { from: 'letters@acme.example', to: [PROCESSING_ADDRESS], raw: fixture(file) });
  return intakeIdOf(replies.data?.text ?? '');
}

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  gateway = await startTestGateway({ worker: true });
  const { store, queue } = gateway;
  ops = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent' }),
    registry: createMetrics().registry,
    redis: gateway.redis,
    queue,
    store,
    dashboard: { user: LOGIN.username, password: LOGIN.password },
    replay: (id) => replayIntake({ store, queue, clock: Date.now, attempts: 3 }, id),
  });
  // The first login is refused: that intake fails until an operator acts.
  gateway.sandbox?.store.injectFault({ status: 401, errorCode: 'InvalidCredentials', paths: '/api/v1/auth/login' });
  failedId = await send('dkim-pass-aligned.eml');
  expect((await gateway.settled(failedId)).state).toBe('failed');
  submittedId = await send('pdf-attachment.eml');
  expect((await gateway.settled(submittedId)).state).toBe('submitted');
  // Refused in the session: no intake, a short record on the refused page.
  const refused = await sendOnce(gateway.port, { from: 'letters@acme.example', to: [PROCESSING_ADDRESS], raw: fixture('no-pdf.eml') });
  expect(refused.data?.text).toMatch(/^550 5\.6\.0 NoPdfAttachment: /);
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await ops?.close();
  await gateway?.close();
});

describe('the intake pages in a browser', () => {
  it.skipIf(!HAVE_CHROMIUM)('refuses a visitor without the login or with a wrong one', async () => {
    const anonymous = await browser?.newContext();
    // Headless Chromium ends an unanswered basic-auth challenge as a failed navigation.
    await expect((await anonymous?.newPage())?.goto(`${ops.url}/admin/intakes`)).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/);
    await anonymous?.close();
    const guessing = await browser?.newContext({ httpCredentials: { username: 'admin', password: 'guess' } });
    const response = await (await guessing?.newPage())?.goto(`${ops.url}/admin/intakes`);
    expect(response?.status()).toBe(401);
    await guessing?.close();
  });

  it.skipIf(!HAVE_CHROMIUM)(
    'lets an operator search a Message-ID, open the failed intake and replay it into a letter',
    async () => {
      expect(failedMessageId).toMatch(/^<.+@.+>$/);
      const context = await browser?.newContext({ httpCredentials: LOGIN, viewport: { width: 1280, height: 800 } });
      const page = await context?.newPage();
      if (context === undefined || page === undefined) throw new Error('no browser page');
      try {
        await page.goto(`${ops.url}/admin/intakes`);
        await expect(page.locator('h1').textContent()).resolves.toBe('Latest intakes');
        await expect(page.locator('table.intakes').textContent()).resolves.toContain(submittedId);
        await expect(page.locator('table.by-reason').textContent()).resolves.toContain('InvalidCredentials');
        await page.screenshot({ path: resolve(SHOTS, 'intake-list.png'), fullPage: true });

        await page.fill('input[name="q"]', failedMessageId);
        await Promise.all([page.waitForURL(/\?q=/), page.click('form.search button')]);
        const found = page.locator('table.intakes tbody tr');
        await expect(found.count()).resolves.toBe(1);
        await expect(found.first().locator('td').first().textContent()).resolves.toBe(failedId);
        await page.screenshot({ path: resolve(SHOTS, 'intake-search.png'), fullPage: true });

        await Promise.all([page.waitForURL(`**/admin/intakes/${failedId}`), page.click(`a:text-is("${failedId}")`)]);
        await expect(page.locator('table.record').textContent()).resolves.toContain('InvalidCredentials');
        await page.screenshot({ path: resolve(SHOTS, 'intake-failed.png'), fullPage: true });

        await Promise.all([page.waitForURL(`**/admin/intakes/${failedId}/replay`), page.click('button:text-is("replay")')]);
        await expect(page.locator('body').textContent()).resolves.toContain('Queued again.');
        expect((await gateway.settled(failedId)).state).toBe('submitted');

        await page.click('a:text-is("back to the intake")');
        await expect(page.locator('table.letter').textContent()).resolves.toContain('PendingApproval');
        await page.screenshot({ path: resolve(SHOTS, 'intake-submitted.png'), fullPage: true });
      } finally {
        await context.close();
      }
    },
    60_000,
  );
});
