// Self-test reports on the sender portal, over real HTTP: a signed-in user sees the self-tests
// whose From is one of its sender's registered addresses, with the report as the admin pages show
// it, and never another sender's (404, as for an id that does not exist).
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentObserver } from '../../src/intake/observer.js';
import { SelfTestReports } from '../../src/intake/self-test-reports.js';
import { reportLines } from '../../src/intake/self-test-text.js';
import { createLogger } from '../../src/log.js';
import { portalKeys } from '../../src/portal/keys.js';
import { hashPassword } from '../../src/portal/passwords.js';
import { PortalUsers } from '../../src/portal/users.js';
import { type PortalPart, startPortalPart } from '../../src/runtime/portal-part.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, fixture, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { sendOnce } from '../helpers/smtp-client.js';

const ACME_ID = '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f';
const EMAIL = 'tester@acme.example';
const PASSWORD = 'self-tests are what I read';
const SELF_TEST = 'selftest@intake.example';
let gateway: TestGateway;
let portal: PortalPart;
let cookie = '';

beforeAll(async () => {
  gateway = await startTestGateway();
  portal = await startPortalPart(
    {
      config: { ...gateway.config, portal: { host: '127.0.0.1', port: 0, publicUrl: undefined } },
      logger: createLogger({ level: 'silent' }),
      clock: Date.now,
      observer: silentObserver,
      redisTopology: { kind: 'standalone', url: TEST_REDIS_URL, tls: undefined },
      rawStore: gateway.rawStore,
    },
    loadSenderDirectory(resolve(FIXTURE_DIR, 'senders.json'), {}),
    gateway.sandbox?.url ?? 'http://127.0.0.1:9', // no letter status is read here
  );
  const users = new PortalUsers(gateway.redis, portalKeys(gateway.prefix));
  const added = await users.add(ACME_ID, EMAIL, Date.now());
  if (!added.ok) throw new Error(added.reason);
  await users.resetPassword(added.user.userId, await hashPassword(PASSWORD));
  const form = await fetch(`${portal.url}/portal/login`);
  const pre = (form.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const signIn = await fetch(`${portal.url}/portal/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: pre, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email: EMAIL, password: PASSWORD }).toString(),
  });
  expect(signIn.status).toBe(303);
  cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}, 60_000);

afterAll(async () => {
  await portal?.close();
  await gateway?.close();
});

async function selfTest(file: string, envelopeFrom: string): Promise<string> {
  const replies = await sendOnce(gateway.port, { from: envelopeFrom, to: [SELF_TEST], raw: fixture(file) });
  const id = /self-test (st[0-9a-f]{24})/.exec(replies.data?.text ?? '')?.[1];
  if (id === undefined) throw new Error(`no self-test id in ${replies.data?.text ?? ''}`);
  return id;
}

const get = (path: string) => fetch(`${portal.url}${path}`, { headers: { cookie } });
const fromHtml = (text: string) =>
  text.replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'");

describe('self-test reports on the sender portal', () => {
  it("lists the sender's own self-tests, linked from the nav, and shows each report as the admin pages do", async () => {
    const acme = await selfTest('dkim-pass-aligned.eml', 'bounce@acme.example');
    const globex = await selfTest('second-sender-globex.eml', 'bounce@globex.example');
    const list = await get('/portal/self-tests');
    expect(list.status).toBe(200);
    const html = await list.text();
    expect(html).toContain('<a href="/portal/self-tests">Self-tests</a>');
    expect(html).toContain(`href="/portal/self-tests/${acme}"`);
    expect(html).not.toContain(globex);

    const detail = await get(`/portal/self-tests/${acme}`);
    expect(detail.status).toBe(200);
    const report = await new SelfTestReports(gateway.redis, gateway.prefix).get(acme);
    if (report === undefined) throw new Error('no report saved');
    const shown = fromHtml(await detail.text());
    for (const line of reportLines(report).filter((l) => l.trim() !== '')) expect(shown).toContain(line);
  });

  it("answers 404 for another sender's self-test, as for one that does not exist", async () => {
    const globex = await selfTest('second-sender-globex.eml', 'bounce@globex.example');
    expect((await get(`/portal/self-tests/${globex}`)).status).toBe(404);
    expect((await get('/portal/self-tests/st000000000000000000000000')).status).toBe(404);
  });

  it('asks for sign-in first', async () => {
    const anonymous = await fetch(`${portal.url}/portal/self-tests`, { redirect: 'manual' });
    expect(anonymous.status).not.toBe(200);
  });
});
