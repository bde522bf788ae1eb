// The sender portal in a real browser (Debian's chromium through playwright-core), over a real
// gateway: an operator makes an account with the CLI, the user sets a password, turns on TOTP
// (reading the key from the page), signs out, signs in with password and TOTP, finds the intake of
// the letter its address just e-mailed, uploads a PDF that becomes a PendingApproval letter, sees
// its sessions and signs out everywhere; another sender's user cannot see the first's intakes.
// With UPDATE_SCREENSHOTS=1 the screenshots of each page are written to docs/screenshots/.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Secret, TOTP } from 'otpauth';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentObserver } from '../../src/intake/observer.js';
import { createLogger } from '../../src/log.js';
import { portalKeys } from '../../src/portal/keys.js';
import { hashPassword } from '../../src/portal/passwords.js';
import { PortalUsers } from '../../src/portal/users.js';
import { type PortalPart, startPortalPart } from '../../src/runtime/portal-part.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import {
  FIXTURE_DIR,
  fixture,
  intakeIdOf,
  PROCESSING_ADDRESS,
  REPO,
  startTestGateway,
  type TestGateway,
  testEnv,
} from '../helpers/gateway.js';
import { letterPdf } from '../helpers/pdf-samples.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { sendOnce } from '../helpers/smtp-client.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) process.stdout.write(`${CHROMIUM} not found (Debian package chromium): the portal browser test is skipped\n`);
const SHOTS = resolve(REPO, process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/screenshots' : 'test-results/screenshots');
const ACME_ID = '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f';
const GLOBEX_ID = '3f9b2a4d-7c1e-4b8a-9d2f-6e5c4b3a2918';
const EMAIL = 'clerk@acme.example';
const PASSWORD = 'correct horse battery staple';

let gateway: TestGateway;
let portal: PortalPart;
let browser: Browser | undefined;
/** The portal's clock runs ahead of the real one by this much (TOTP steps without waiting). */
let ahead = 0;
const clock = (): number => Date.now() + ahead;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  gateway = await startTestGateway({ worker: true });
  const config = { ...gateway.config, portal: { host: '127.0.0.1', port: 0, publicUrl: undefined } };
  const directory = loadSenderDirectory(resolve(FIXTURE_DIR, 'senders.json'), {});
  portal = await startPortalPart(
    {
      config,
      logger: createLogger({ level: 'silent' }),
      clock,
      observer: silentObserver,
      redisTopology: { kind: 'standalone', url: TEST_REDIS_URL, tls: undefined },
      rawStore: gateway.rawStore,
    },
    directory,
    gateway.sandbox?.url ?? '',
  );
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await portal?.close();
  await gateway?.close();
});

/** `letter-intake portal-user add`, the compiled CLI against the test's Redis prefix. */
async function addUserWithCli(sender: string, email: string): Promise<string> {
  const env = { ...process.env, ...testEnv(gateway.prefix), PORTAL_PUBLIC_URL: portal.url, LOG_LEVEL: 'silent' };
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [resolve(REPO, 'dist/cli.js'), 'portal-user', 'add', '--sender', sender, '--email', email],
    { env },
  );
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

const shot = (page: Page, name: string) => page.screenshot({ path: resolve(SHOTS, `portal-${name}.png`), fullPage: true });
const codeAt = (secret: string, at: number): string =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

async function submit(page: Page, selector = 'main form button[type=submit]'): Promise<void> {
  await Promise.all([page.waitForLoadState('load'), page.waitForNavigation(), page.click(selector)]);
}

describe('the sender portal in a browser', () => {
  it.skipIf(!HAVE_CHROMIUM)(
    'takes a sender from its first link to a PendingApproval upload, with TOTP, sessions and sign-out everywhere',
    async () => {
      const link = await addUserWithCli(ACME_ID, EMAIL);
      expect(link).toMatch(new RegExp(`^${portal.url}/portal/set-password\\?token=[A-Za-z0-9_-]{43}$`));
      // The letter Acme's address e-mails, before the user ever signs in.
      const replies = await sendOnce(gateway.port, {
        from: 'letters@acme.example',
        to: [PROCESSING_ADDRESS],
        raw: fixture('pdf-attachment.eml'),
      });
      const mailed = intakeIdOf(replies.data?.text ?? '');
      expect((await gateway.settled(mailed)).state).toBe('submitted');

      const context = await browser?.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context?.newPage();
      if (context === undefined || page === undefined) throw new Error('no browser page');
      try {
        await page.goto(link);
        await expect(page.locator('h1').textContent()).resolves.toBe('Set your password');
        await shot(page, 'set-password');
        await page.fill('#password', PASSWORD);
        await page.fill('#confirm', PASSWORD);
        await submit(page);
        expect(page.url()).toContain('/portal/login?password-set=1');
        // the link works once
        expect((await page.request.get(link)).status()).toBe(410);

        await page.fill('#email', EMAIL);
        await page.fill('#password', PASSWORD);
        await shot(page, 'login');
        await submit(page);
        expect(page.url()).toBe(`${portal.url}/portal/intakes`);

        await page.goto(`${portal.url}/portal/security/totp`);
        const secret = (await page.locator('code.secret').textContent()) ?? '';
        expect(secret).toMatch(/^[A-Z2-7]{32}$/);
        await expect(page.locator('.uri').textContent()).resolves.toContain(`otpauth://totp/letter-intake:${encodeURIComponent(EMAIL)}?`);
        await expect(page.locator('img.qr').getAttribute('src')).resolves.toMatch(/^data:image\/svg\+xml;base64,/);
        await shot(page, 'totp-setup');
        await page.fill('#code', codeAt(secret, clock()));
        await page.fill('#password', PASSWORD);
        await submit(page);
        await expect(page.locator('h1').textContent()).resolves.toBe('Two-factor sign-in is on');
        await expect(page.locator('ul.codes li').count()).resolves.toBe(10);
        await shot(page, 'backup-codes');

        await submit(page, 'header form button');
        expect(page.url()).toContain('/portal/login?signed-out=1');
        await page.fill('#email', EMAIL);
        await page.fill('#password', PASSWORD);
        await submit(page);
        expect(page.url()).toBe(`${portal.url}/portal/login/code`);
        await shot(page, 'second-step');
        ahead += 30_000; // the next step: the setup's code is used
        await page.fill('#code', codeAt(secret, clock()));
        await submit(page);
        expect(page.url()).toBe(`${portal.url}/portal/intakes`);

        await expect(page.locator('table.intakes').textContent()).resolves.toContain(mailed);
        await page.fill('#q', '<pdf-attachment@acme.example>');
        await submit(page, 'form.search button');
        await expect(page.locator('table.intakes tbody tr').count()).resolves.toBe(1);
        await shot(page, 'intakes');
        await Promise.all([page.waitForURL(`**/portal/intakes/${mailed}`), page.click(`a:text-is("${mailed}")`)]);
        await expect(page.locator('td.state').textContent()).resolves.toContain('submitted');
        await shot(page, 'intake');

        await page.goto(`${portal.url}/portal/letters/new`);
        await page.fill('#title', 'Water bill, November');
        await page.fill('#description', 'Your bill for November is attached.');
        await page.setInputFiles('#pdf', { name: 'bill.pdf', mimeType: 'application/pdf', buffer: await letterPdf() });
        await shot(page, 'upload');
        await submit(page);
        const uploaded = /\/portal\/intakes\/([^/?]+)$/.exec(page.url())?.[1] ?? '';
        const record = await gateway.settled(uploaded);
        expect(record).toMatchObject({ state: 'submitted', letterStatus: 'PendingApproval', channel: 'web', uploadedBy: EMAIL });
        await page.reload();
        await expect(page.locator('table.record').textContent()).resolves.toContain('PendingApproval');
        await page.goto(`${portal.url}/portal/letters`);
        await expect(page.locator('table.letters').textContent()).resolves.toContain(record.letterId ?? 'no letter');
        await shot(page, 'letters');

        // A self-test from Acme's address: listed from the nav, its report as the admin pages show it.
        const selfTest = await sendOnce(gateway.port, {
          from: 'bounce@acme.example',
          to: ['selftest@intake.example'],
          raw: fixture('dkim-pass-aligned.eml'),
        });
        const selfTestId = /self-test (st[0-9a-f]{24})/.exec(selfTest.data?.text ?? '')?.[1] ?? 'no self-test id';
        await page.click('nav a:text-is("Self-tests")');
        await expect(page.locator('table.intakes').textContent()).resolves.toContain(selfTestId);
        await Promise.all([page.waitForURL(`**/portal/self-tests/${selfTestId}`), page.click(`a:text-is("${selfTestId}")`)]);
        await expect(page.locator('pre.report').textContent()).resolves.toContain('Registered sender: yes');
        await shot(page, 'self-test');

        await page.goto(`${portal.url}/portal/sessions`);
        await expect(page.locator('table.sessions tbody tr').count()).resolves.toBeGreaterThanOrEqual(1);
        await expect(page.locator('table.sessions').textContent()).resolves.toContain('this browser');
        await shot(page, 'sessions');
        await submit(page, 'main form button');
        expect(page.url()).toContain('/portal/login');
        await page.goto(`${portal.url}/portal/intakes`);
        expect(page.url()).toContain('/portal/login');

        // Another sender's user sees none of Acme's intakes.
        const users = new PortalUsers(gateway.redis, portalKeys(gateway.prefix));
        const added = await users.add(GLOBEX_ID, 'clerk@globex.example', Date.now());
        if (!added.ok) throw new Error(added.reason);
        await users.resetPassword(added.user.userId, await hashPassword(PASSWORD));
        await page.fill('#email', 'clerk@globex.example');
        await page.fill('#password', PASSWORD);
        await submit(page);
        await expect(page.locator('table.intakes').textContent()).resolves.not.toContain(mailed);
        expect((await page.goto(`${portal.url}/portal/intakes/${mailed}`))?.status()).toBe(404);
      } finally {
        await context.close();
      }
    },
    120_000,
  );

  it.skipIf(!HAVE_CHROMIUM)('refuses a POST without its CSRF token (403) and sends the security headers', async () => {
    const answer = await fetch(`${portal.url}/portal/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.example&password=whatever-at-all',
    });
    expect(answer.status).toBe(403);
    const page = await fetch(`${portal.url}/portal/login`);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).not.toContain('script-src');
    expect(page.headers.get('set-cookie')).toMatch(/HttpOnly; Secure; SameSite=Lax/i);
  });
});
