// Uploading a letter on the portal over real HTTP: the CSRF token is checked before the multipart
// body is read (403), a refusal shows its reason code on the form, and a form sent twice makes one
// intake that ends as a PendingApproval letter recorded as the user's upload.
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentObserver } from '../../src/intake/observer.js';
import { createLogger } from '../../src/log.js';
import { portalKeys } from '../../src/portal/keys.js';
import { hashPassword } from '../../src/portal/passwords.js';
import { PortalUsers } from '../../src/portal/users.js';
import { type PortalPart, startPortalPart } from '../../src/runtime/portal-part.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { letterPdf } from '../helpers/pdf-samples.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

const ACME_ID = '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f';
const EMAIL = 'uploader@acme.example';
const PASSWORD = 'uploading is what I do';
let gateway: TestGateway;
let portal: PortalPart;
let cookie = '';

beforeAll(async () => {
  gateway = await startTestGateway({ worker: true });
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
    gateway.sandbox?.url ?? '',
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

/** The upload form as a browser gets it: its action (with the CSRF token) and its one-time token. */
async function uploadForm(): Promise<{ action: string; token: string }> {
  const text = await (await fetch(`${portal.url}/portal/letters/new`, { headers: { cookie } })).text();
  const action = /action="([^"]+)" enctype="multipart\/form-data"/.exec(text)?.[1]?.replaceAll('&amp;', '&') ?? '';
  const token = /name="form" value="([^"]+)"/.exec(text)?.[1] ?? '';
  return { action, token };
}

function body(token: string, title: string, pdf: Buffer, name = 'bill.pdf'): FormData {
  const data = new FormData();
  data.set('form', token);
  data.set('title', title);
  data.set('description', 'Attached.');
  data.append('pdf', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), name);
  return data;
}

const post = (action: string, data: FormData) =>
  fetch(`${portal.url}${action}`, { method: 'POST', redirect: 'manual', headers: { cookie }, body: data });

describe('uploading a letter on the portal', () => {
  it('refuses a multipart POST without the CSRF token in its query with 403', async () => {
    const { token } = await uploadForm();
    const answer = await post('/portal/letters/new', body(token, 'No token', await letterPdf()));
    expect(answer.status).toBe(403);
  });

  it('shows a refusal by its reason code on the form', async () => {
    const { action, token } = await uploadForm();
    const answer = await post(action, body(token, 'Renamed picture', Buffer.from('GIF89a not a pdf at all'), 'scan.pdf'));
    expect(answer.status).toBe(422);
    expect(await answer.text()).toMatch(/<code class="reason-code">NotAPdf<\/code>/);
  });

  it('makes one intake of a form sent twice, a PendingApproval letter recorded as the user upload', async () => {
    const { action, token } = await uploadForm();
    const pdf = await letterPdf();
    const first = await post(action, body(token, 'Water bill', pdf));
    const second = await post(action, body(token, 'Water bill', pdf));
    expect(first.status).toBe(303);
    expect(second.status).toBe(303);
    const location = first.headers.get('location') ?? '';
    expect(location).toMatch(/^\/portal\/intakes\/in[0-9a-f]+$/);
    expect(second.headers.get('location')).toBe(location);
    const record = await gateway.settled(location.split('/').at(-1) ?? '');
    expect(record).toMatchObject({
      state: 'submitted',
      letterStatus: 'PendingApproval',
      channel: 'web',
      uploadedBy: EMAIL,
      subject: 'Water bill',
    });
    expect(await gateway.redis.zcard(`${gateway.prefix}:state:submitted`)).toBe(1);
  }, 30_000);
});
