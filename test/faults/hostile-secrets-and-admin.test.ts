// Secrets and the two HTTP surfaces. One gateway (listener, worker, sandbox; logs at debug) and
// its ops server run here; letters go through every Sender API path that logs (login, re-login,
// retries, a refusal, failed credentials), and then every captured log line is searched for
// client secrets, session ids, message bodies and PDF bytes. Every admin route refuses without
// the right login, and the sandbox shows no sender another sender's letters.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { appRoutes } from '@bull-board/api/dist/routes.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNERS } from '../../fixtures/keys.js';
import { loadConfig } from '../../src/config.js';
import { INTAKE_QUEUE } from '../../src/intake/queue.js';
import { createLogger } from '../../src/log.js';
import { type OpsPart, startOpsPart } from '../../src/runtime/ops-part.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway, testEnv } from '../helpers/gateway.js';
import { BODY_MARKER, letter, signAs } from '../helpers/hostile-messages.js';
import { standaloneTopology } from '../helpers/redis.js';
import { call, field, letterBody } from '../helpers/sandbox.js';
import { sendOnce } from '../helpers/smtp-client.js';
import { findLeaks, printTable } from './summary.js';

interface DirectorySender {
  readonly apiClientId: string;
  readonly apiClientSecret: string;
  readonly senderId: string;
  readonly addresses: readonly string[];
}
const SENDERS: readonly DirectorySender[] = JSON.parse(readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8')).senders;
const sender = (address: string): DirectorySender => {
  const found = SENDERS.find((s) => s.addresses.includes(address));
  if (found === undefined) throw new Error(`no sender ${address} in fixtures/senders.json`);
  return found;
};
const ACME = sender('letters@acme.example');
const GLOBEX = sender('letters@globex.example');
const DASHBOARD_USER = 'admin';
const DASHBOARD_PASSWORD = `dash-${randomUUID()}`;
const WRONG_SECRET = `wrong-secret-${randomUUID()}`;

let gateway: TestGateway;
let ops: OpsPart;
const opsLogs: Record<string, unknown>[] = [];
const sessionIds: string[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({
    worker: true,
    env: { LOG_LEVEL: 'debug', WORKER_BACKOFF_BASE_MS: '10', WORKER_BACKOFF_CAP_MS: '50' },
  });
  // capture every session the sandbox issues (logins and refreshes), to look for them in the logs
  const sessions = gateway.sandbox?.store.sessions;
  if (sessions === undefined) throw new Error('no sandbox');
  const login = sessions.login.bind(sessions);
  const refresh = sessions.refresh.bind(sessions);
  sessions.login = (senderId) => {
    const s = login(senderId);
    sessionIds.push(s.sessionId);
    return s;
  };
  sessions.refresh = (id) => {
    const s = refresh(id);
    if (s !== undefined) sessionIds.push(s.sessionId);
    return s;
  };

  // Behind a trusted proxy (this test) each route's wrong logins come from an address of their
  // own: the login limit (10 failures per address) is its own test, admin-login-limits.test.ts.
  const env = testEnv(gateway.prefix, {
    OPS_HTTP_HOST: '127.0.0.1',
    OPS_HTTP_PORT: '0',
    OPS_HTTP_TRUSTED_PROXIES: '127.0.0.1',
    DASHBOARD_USER,
    DASHBOARD_PASSWORD,
    LOG_LEVEL: 'debug',
  });
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') opsLogs.push(JSON.parse(line));
      done();
    },
  });
  ops = await startOpsPart(
    { config: loadConfig(env), env, logger: createLogger({ level: 'debug', destination }), clock: Date.now },
    standaloneTopology(),
    { admin: true },
  );
});
afterAll(async () => {
  await ops.close();
  await gateway.close();
});

const sandboxUrl = () => gateway.sandbox?.url ?? '';
const injectFault = (fault: Record<string, unknown>) => call(sandboxUrl(), 'POST', '/sandbox/faults', { body: fault });

async function deliverSigned(from: 'acme' | 'globex', subject: string): Promise<string> {
  const raw =
    from === 'acme'
      ? await signAs(letter({ subject }))
      : await signAs(letter({ subject, from: ['Globex <letters@globex.example>'] }), SIGNERS.globexRsa);
  const replies = await sendOnce(gateway.port, {
    from: `letters@${from}.example`,
    to: [PROCESSING_ADDRESS],
    raw,
    helo: 'mta.acme.example',
  });
  return intakeIdOf(replies.data?.text ?? '');
}

const outcomes: string[][] = [];

describe('every logging path of the Sender API client and the sandbox', () => {
  it('drives login, re-login, retries, a refusal and failed credentials', async () => {
    const paths: [string, () => Promise<unknown>, string][] = [
      ['plain submit (acme)', async () => undefined, 'submitted'],
      ['plain submit (globex)', async () => undefined, 'submitted'],
      [
        '401 InvalidSession → log in again',
        () => injectFault({ status: 401, errorCode: 'InvalidSession', paths: '/api/v1/letters' }),
        'submitted',
      ],
      ['sessions forgotten (API restart)', async () => gateway.sandbox?.store.forgetSessions(), 'submitted'],
      [
        '500 then 503 → retried',
        async () => {
          await injectFault({ status: 500, paths: '/api/v1/letters' });
          await injectFault({ status: 503, paths: '/api/v1/letters' });
        },
        'submitted',
      ],
      [
        '400 InvalidData → rejected',
        () => injectFault({ status: 400, errorCode: 'InvalidData', paths: '/api/v1/letters/draft' }),
        'rejected',
      ],
      [
        '401 InvalidCredentials at login → failed',
        async () => {
          gateway.sandbox?.store.forgetSessions();
          await injectFault({ status: 401, errorCode: 'InvalidCredentials', paths: '/api/v1/auth/login' });
        },
        'failed',
      ],
    ];
    for (const [i, [what, arrange, expected]] of paths.entries()) {
      await arrange();
      const id = await deliverSigned(i === 1 ? 'globex' : 'acme', `Secrets path ${i}: ${what}`);
      const record = await gateway.settled(id, 30_000);
      outcomes.push([what, record.state, record.reasonCode ?? record.errorCode ?? '']);
      expect({ what, state: record.state }).toEqual({ what, state: expected });
    }
    // refusals that carry bodies: unsigned at SMTP, and a login with a wrong secret at the sandbox
    const refused = await sendOnce(gateway.port, {
      from: 'letters@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: Buffer.from(letter()),
      helo: 'mta.acme.example',
    });
    const wrongLogin = await call(sandboxUrl(), 'POST', '/api/v1/auth/login/api', {
      headers: { 'x-api-client-id': ACME.apiClientId, 'x-api-client-secret': WRONG_SECRET },
    });
    outcomes.push(
      ['unsigned letter at SMTP', refused.data?.text.slice(0, 9) ?? '', ''],
      ['sandbox login, wrong secret', String(wrongLogin.status), String(field(wrongLogin.json, 'errorCode'))],
    );
    printTable('hostile-secrets-and-admin: Sender API paths driven', ['path', 'intake', 'code'], outcomes);
    expect(refused.data?.code).toBe(550);
    expect(wrongLogin.status).toBe(401);
  }, 120_000);
});

// ---- the admin surface ----

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** Every admin route: bull-board's own route table (under /admin/queues), its static files, the intake pages. */
function adminRoutes(): { method: string; path: string }[] {
  const fill = (route: string) =>
    route
      .replace(':queueName', INTAKE_QUEUE)
      .replace(':jobId', 'in000000000000000000000000')
      .replace(':queueStatus', 'failed')
      .replace(':schedulerId', 'none');
  const entry = [appRoutes.entryPoint.route].flat().map((r) => ({ method: 'GET', path: `/admin/queues${fill(r)}` }));
  const api = appRoutes.api.flatMap((r) =>
    [r.method].flat().flatMap((m) => [r.route].flat().map((route) => ({ method: m.toUpperCase(), path: `/admin/queues${fill(route)}` }))),
  );
  return [
    { method: 'GET', path: '/admin/queues' },
    ...entry,
    ...api,
    { method: 'GET', path: '/admin/queues/static/favicon-32x32.png' },
    { method: 'GET', path: '/admin/intakes' },
    { method: 'GET', path: '/admin/intakes?state=submitted,failed&format=json' },
    { method: 'GET', path: '/admin/intakes/in000000000000000000000000' },
    { method: 'POST', path: '/admin/intakes/in000000000000000000000000/replay' },
  ];
}

const WRONG_LOGINS: readonly [string, Record<string, string>][] = [
  ['none', {}],
  ['wrong password', { authorization: basic(DASHBOARD_USER, 'guess') }],
  ['right password + 1 char', { authorization: basic(DASHBOARD_USER, `${DASHBOARD_PASSWORD}!`) }],
  ['wrong user', { authorization: basic('root', DASHBOARD_PASSWORD) }],
  ['empty user and password', { authorization: basic('', '') }],
  ['password only', { authorization: `Basic ${Buffer.from(DASHBOARD_PASSWORD).toString('base64')}` }],
  ['not base64', { authorization: 'Basic !!!not-base64!!!' }],
  ['Bearer scheme', { authorization: `Bearer ${DASHBOARD_PASSWORD}` }],
];

describe('the admin surface', () => {
  const routes = adminRoutes();
  const rows: string[][] = [];

  it(`refuses all ${routes.length} admin routes with 401 for ${WRONG_LOGINS.length} wrong logins, and serves the safe ones with the right login`, async () => {
    expect(routes.length).toBeGreaterThanOrEqual(40);
    for (const [index, route] of routes.entries()) {
      const statuses: number[] = [];
      const client = `10.0.${index >> 8}.${index & 255}`;
      for (const [, headers] of WRONG_LOGINS) {
        const answer = await fetch(`${ops.url}${route.path}`, {
          method: route.method,
          headers: { ...headers, 'x-forwarded-for': client },
          redirect: 'manual',
        });
        const body = await answer.text();
        statuses.push(answer.status);
        expect({ route: `${route.method} ${route.path}`, status: answer.status }).toEqual({
          route: `${route.method} ${route.path}`,
          status: 401,
        });
        expect(answer.headers.get('www-authenticate') ?? '').toMatch(/^Basic realm=/);
        expect(body).not.toMatch(/in[0-9a-f]{24}|letters@|"intakes"/);
      }
      // with the right login: read-only routes answer (proving the 401 above guarded a real route)
      let right = '-';
      if (route.method === 'GET' || route.path.endsWith('/replay')) {
        const answer = await fetch(`${ops.url}${route.path}`, {
          method: route.method,
          headers: { authorization: basic(DASHBOARD_USER, DASHBOARD_PASSWORD) },
          redirect: 'manual',
        });
        right = String(answer.status);
        expect(answer.status).not.toBe(401);
        if (route.path === '/admin/intakes' || route.path === '/admin/queues/api/queues') expect(answer.status).toBe(200);
      }
      rows.push([`${route.method} ${route.path}`, [...new Set(statuses)].join(','), right]);
    }
  }, 120_000);

  it('refuses path tricks and other methods without a login, never answering 2xx', async () => {
    const tricks = [
      '/admin//intakes',
      '/admin/intakes/',
      '/ADMIN/intakes',
      '/admin/%69ntakes',
      '/admin/queues/../intakes',
      '/admin/queues/%2e%2e/intakes',
      '/admin/intakes;x',
      '/admin/queues/api/queues?x=1',
    ];
    for (const path of tricks) {
      for (const method of ['GET', 'HEAD', 'DELETE']) {
        const answer = await fetch(`${ops.url}${path}`, { method, redirect: 'manual' });
        rows.push([`${method} ${path} (trick)`, String(answer.status), '']);
        expect({ path, method, ok: answer.status < 300 || (answer.status >= 300 && answer.status < 400) }).toEqual({
          path,
          method,
          ok: false,
        });
      }
    }
  });

  it('keeps the public probes free of secrets', async () => {
    const bodies = await Promise.all(['/healthz', '/readyz', '/metrics'].map(async (p) => (await fetch(`${ops.url}${p}`)).text()));
    const leaks = findLeaks(bodies, [
      ...SENDERS.map((s) => ({ what: 'secret', text: s.apiClientSecret })),
      ...sessionIds.map((id) => ({ what: 'session', text: id })),
      { what: 'password', text: DASHBOARD_PASSWORD },
    ]);
    expect(bodies[2]).toMatch(/# TYPE /);
    expect(leaks).toEqual([]);
  });

  afterAll(() => {
    printTable(
      `hostile-secrets-and-admin: ${rows.length} admin requests shapes (wrong logins: ${WRONG_LOGINS.map(([w]) => w).join('; ')})`,
      ['route', 'wrong logins →', 'right login →'],
      rows,
    );
  });
});

// ---- the sandbox: one sender never sees another's letters ----

describe('sandbox letter isolation between senders', () => {
  const rows: string[][] = [];

  it('answers 404 for another sender’s letter, lists only one’s own, and refuses to change another’s draft', async () => {
    const login = async (s: DirectorySender) => {
      const answer = await call(sandboxUrl(), 'POST', '/api/v1/auth/login/api', {
        headers: { 'x-api-client-id': s.apiClientId, 'x-api-client-secret': s.apiClientSecret },
      });
      const id = field(answer.json, 'sessionId');
      if (typeof id !== 'string') throw new Error(`login ${s.apiClientId}: ${answer.status}`);
      return id;
    };
    const acme = await login(ACME);
    const globex = await login(GLOBEX);
    const globexDraft = field(
      (await call(sandboxUrl(), 'PUT', '/api/v1/letters/draft', { session: globex, body: letterBody({ title: 'Globex private draft' }) }))
        .json,
      'id',
    );
    const all = gateway.sandbox?.store.allLetters() ?? [];
    const globexIds = all.filter((l) => l.senderId === GLOBEX.senderId).map((l) => l.id);
    const acmeIds = all.filter((l) => l.senderId === ACME.senderId).map((l) => l.id);
    expect(typeof globexDraft).toBe('string');
    expect(globexIds.length).toBeGreaterThanOrEqual(2); // the submitted letter from the secrets test and the draft
    expect(acmeIds.length).toBeGreaterThanOrEqual(1);

    const probes: [string, Promise<{ status: number; json: unknown }>, number][] = [
      ...globexIds.map((id): [string, Promise<{ status: number; json: unknown }>, number] => [
        `acme GET globex letter ${id.slice(0, 8)}`,
        call(sandboxUrl(), 'GET', `/api/v1/letters/${id}`, { session: acme }),
        404,
      ]),
      ['acme GET a letter that never existed', call(sandboxUrl(), 'GET', `/api/v1/letters/${randomUUID()}`, { session: acme }), 404],
      [
        'acme PUT draft with globex draft id',
        call(sandboxUrl(), 'PUT', '/api/v1/letters/draft', { session: acme, body: letterBody({ id: globexDraft, title: 'hijacked' }) }),
        404,
      ],
      [
        'acme POST submit with globex draft id',
        call(sandboxUrl(), 'POST', '/api/v1/letters/submit', { session: acme, body: letterBody({ id: globexDraft, title: 'hijacked' }) }),
        404,
      ],
      ['globex GET its own draft', call(sandboxUrl(), 'GET', `/api/v1/letters/${String(globexDraft)}`, { session: globex }), 200],
      ['no session GET globex letter', call(sandboxUrl(), 'GET', `/api/v1/letters/${String(globexDraft)}`), 401],
      [
        'made-up session GET globex letter',
        call(sandboxUrl(), 'GET', `/api/v1/letters/${String(globexDraft)}`, { session: randomUUID() }),
        401,
      ],
    ];
    for (const [what, answer, expected] of probes) {
      const { status, json } = await answer;
      rows.push([what, String(expected), `${status} ${String(field(json, 'errorCode') ?? '')}`]);
      expect({ what, status }).toEqual({ what, status: expected });
    }
    const missing = await call(sandboxUrl(), 'GET', `/api/v1/letters/${randomUUID()}`, { session: acme });
    const others = await call(sandboxUrl(), 'GET', `/api/v1/letters/${globexIds[0] ?? ''}`, { session: acme });
    expect(field(others.json, 'errorCode')).toBe(field(missing.json, 'errorCode')); // no existence oracle

    for (const [who, session, own, foreign] of [
      ['acme', acme, acmeIds, globexIds],
      ['globex', globex, globexIds, acmeIds],
    ] as const) {
      const list = await call(sandboxUrl(), 'GET', '/api/v1/letters?pageSize=100', { session });
      const items = field(list.json, 'items');
      const ids = Array.isArray(items) ? items.map((i: unknown) => String(field(i, 'id'))) : [];
      rows.push([
        `${who} list`,
        `only its ${own.length}`,
        `${ids.length} items, ${ids.filter((id) => foreign.includes(id)).length} foreign`,
      ]);
      expect(ids.sort()).toEqual([...own].sort());
    }
    const draft = gateway.sandbox?.store.allLetters().find((l) => l.id === globexDraft);
    expect([draft?.title, draft?.status]).toEqual(['Globex private draft', 'Draft']);
  });

  afterAll(() => {
    printTable('hostile-secrets-and-admin: sandbox isolation', ['request', 'expected', 'got'], rows);
  });
});

// ---- last: every log line of the whole file ----

describe('no secret, session id or message body in any log line', () => {
  it('finds none in the gateway, sandbox and ops logs of this whole file (and the scan finds a planted one)', async () => {
    // the admin login, right and wrong, is exercised by the admin tests below too; do one of each here
    await fetch(`${ops.url}/admin/intakes`, { headers: { authorization: basic(DASHBOARD_USER, DASHBOARD_PASSWORD) } });
    await fetch(`${ops.url}/admin/intakes`, { headers: { authorization: basic(DASHBOARD_USER, `${DASHBOARD_PASSWORD}x`) } });
    const needles = [
      ...SENDERS.map((s) => ({ what: `client secret of ${s.apiClientId}`, text: s.apiClientSecret })),
      ...sessionIds.map((id) => ({ what: 'session id', text: id })),
      { what: 'message body', text: BODY_MARKER },
      { what: 'PDF bytes (base64 of %PDF-)', text: 'JVBERi0' },
      { what: 'a wrong client secret tried', text: WRONG_SECRET },
      { what: 'dashboard password', text: DASHBOARD_PASSWORD },
      { what: 'basic-auth header', text: Buffer.from(`${DASHBOARD_USER}:${DASHBOARD_PASSWORD}`).toString('base64') },
    ];
    const lines = [...gateway.logs, ...opsLogs];
    const leaks = findLeaks(lines, needles);
    const planted = findLeaks([{ msg: `oops ${ACME.apiClientSecret}` }, { sessionId: sessionIds[0] }], needles);
    printTable(
      `hostile-secrets-and-admin: log scan, ${lines.length} lines (${gateway.logs.length} gateway+sandbox, ${opsLogs.length} ops)`,
      ['needle', 'values', 'lines containing it'],
      [...new Set(needles.map((n) => n.what))].map((what) => [
        what,
        needles.filter((n) => n.what === what).length,
        leaks.filter((l) => l.what === what).length,
      ]),
    );
    expect(sessionIds.length).toBeGreaterThanOrEqual(4); // first logins, re-logins after 401 and after the reset
    expect(gateway.logs.filter((l) => l.event === 'intake.api_error').length).toBeGreaterThanOrEqual(4);
    expect(gateway.logs.some((l) => l.msg === 'sandbox login')).toBe(true);
    expect(planted.map((l) => l.what)).toEqual([`client secret of ${ACME.apiClientId}`, 'session id']);
    expect(leaks).toEqual([]);
  });
});
