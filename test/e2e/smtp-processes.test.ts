// `letter-intake start` with SMTP_PROCESSES=2, as a real process tree: two listener processes
// share the SMTP port and both serve sessions; /metrics sums them and names each; /readyz shows
// each; one killed mid-DATA never answered 250, is started again, and the MTA's retry is
// accepted; SIGHUP and a changed senders file reload both; SIGTERM lets a DATA in flight finish
// and waits for both.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_DIR, PROCESSING_ADDRESS, REPO, testEnv } from '../helpers/gateway.js';
import { type RoleProcess, runCli, startRole } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { dotStuff, SmtpClient, sendOnce } from '../helpers/smtp-client.js';

const dir = mkdtempSync(join(tmpdir(), 'letter-intake-smtp-processes-'));
const prefix = randomPrefix();
const sendersFile = join(dir, 'senders.json');
// Faults a test turns on in the listener processes (test/helpers/listener-faults.mjs).
const faults = join(dir, 'faults');
const faultEnv = {
  GROUP_COMMIT: 'on',
  LISTENER_FAULTS_DIR: faults,
  NODE_OPTIONS: `--import ${join(REPO, 'test/helpers/listener-faults.mjs')}`,
};
let proc: RoleProcess;
let port: number;
let ops: string;

beforeAll(async () => {
  copyFileSync(join(FIXTURE_DIR, 'senders.json'), sendersFile);
  mkdirSync(faults);
  proc = await startRole(
    'start',
    testEnv(prefix, { ...faultEnv, DATA_DIR: dir, OPS_HTTP_PORT: '0', SANDBOX_PORT: '0', SENDERS_FILE: sendersFile, SMTP_PROCESSES: '2' }),
  );
  const ready = await proc.waitForLog((l) => l.event === 'start.ready');
  port = Number(ready.smtpPort);
  ops = String(ready.ops);
});

afterAll(async () => {
  await proc.stop();
  const redis = connectTestRedis();
  await dropPrefix(redis, prefix);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

/** One sample of the aggregated /metrics, e.g. `letter_intake_smtp_listener_connections_total{listener="1"}`; 0 when absent. */
async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${ops}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const served = (listener: string): Promise<number> => metric(`letter_intake_smtp_listener_connections_total{listener="${listener}"}`);

interface ReadyzBody {
  ready: boolean;
  listeners?: Record<string, string>;
  listenersLoaded?: Record<string, Record<string, { version: string }>>;
}

async function readyz(): Promise<{ status: number; body: ReadyzBody }> {
  const response = await fetch(`${ops}/readyz`);
  return { status: response.status, body: (await response.json()) as ReadyzBody };
}

/** The sender directory version each listener process reports through /readyz. */
async function directoryVersions(): Promise<(string | undefined)[]> {
  const loaded = (await readyz()).body.listenersLoaded ?? {};
  return ['1', '2'].map((listener) => loaded[listener]?.['smtp-senders']?.version);
}

/** The pids of the listener processes' start lines once `count` were read (each process writes its own lines, after the primary's "ready" perhaps). */
async function listenerPids(role: RoleProcess, count: number): Promise<number[]> {
  const started = (): Record<string, unknown>[] => role.logs.filter((l) => l.event === 'smtp.listener_started');
  await expect.poll(() => started().length, { timeout: 20_000 }).toBeGreaterThanOrEqual(count);
  return started().map((l) => Number(l.pid));
}

/** The pid of the listener process numbered `listener`, from its latest start line. */
function pidOf(listener: string): number {
  const started = proc.logs.filter((l) => l.event === 'smtp.listener_started' && l.listener === Number(listener));
  return Number(started.at(-1)?.pid);
}

/** Opens a session and sends MAIL, RCPT, DATA and the first half of `raw` (no end of data). */
async function halfwayThroughData(raw: Buffer): Promise<{ client: SmtpClient; rest: Buffer }> {
  const { client } = await SmtpClient.open(port);
  await client.command('EHLO mta.acme.example');
  expect((await client.command('MAIL FROM:<bounce@acme.example>')).code).toBe(250);
  expect((await client.command(`RCPT TO:<${PROCESSING_ADDRESS}>`)).code).toBe(250);
  expect((await client.command('DATA')).code).toBe(354);
  const stuffed = dotStuff(raw);
  const half = Math.floor(stuffed.length / 2);
  client.write(stuffed.subarray(0, half));
  return { client, rest: stuffed.subarray(half) };
}

/** Which listener process took the session opened since `before` (its connection count moved). */
async function listenerThatTook(before: Record<string, number>): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    for (const listener of ['1', '2']) if ((await served(listener)) > (before[listener] ?? 0)) return listener;
  }
  throw new Error('no listener process counted the session');
}

const counts = async (): Promise<Record<string, number>> => ({ '1': await served('1'), '2': await served('2') });

describe('two listener processes on one port', () => {
  it('both serve sessions over many connections; /metrics sums them and names each; /readyz shows each', async () => {
    const replies = [];
    for (let i = 0; i < 8; i++) {
      const raw = await signedLetter({ title: `Connection ${i}` });
      replies.push(await sendOnce(port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw }));
    }

    expect(replies.map((r) => r.data?.code)).toEqual(Array(8).fill(250));
    const [one, two] = [await served('1'), await served('2')];
    expect(one).toBeGreaterThan(0);
    expect(two).toBeGreaterThan(0);
    expect(await metric('letter_intake_smtp_connections_total')).toBe(one + two);
    expect(await metric('letter_intake_smtp_replies_total{code="250",command="DATA"}')).toBe(8);
    const accepted = proc.logs.filter((l) => l.event === 'smtp.accepted');
    expect(new Set(accepted.map((l) => l.listener))).toEqual(new Set([1, 2]));
    expect(await readyz()).toEqual({ status: 200, body: expect.objectContaining({ ready: true, listeners: { '1': 'ok', '2': 'ok' } }) });
    // each holds half of SMTP_MEMORY_BUDGET_BYTES (128 MiB by default)
    const budgets = proc.logs.filter((l) => l.event === 'smtp.listener_started').map((l) => l.memoryBudgetBytes);
    expect(budgets).toEqual([64 * 1024 * 1024, 64 * 1024 * 1024]);
  });

  it('/readyz is 503 while one listener process does not answer, naming it, and 200 once it does', async () => {
    const pid = pidOf('2');
    const connections = await metric('letter_intake_smtp_connections_total');

    process.kill(pid, 'SIGSTOP');
    const [stopped, connectionsWhileStopped] = await Promise.all([readyz(), metric('letter_intake_smtp_connections_total')]).finally(() =>
      process.kill(pid, 'SIGCONT'),
    );

    // its counters stay in the sum (its last answer) while it does not answer
    expect(connectionsWhileStopped).toBe(connections);
    expect(stopped).toEqual({ status: 503, body: expect.objectContaining({ ready: false, listeners: { '1': 'ok', '2': 'failing' } }) });
    expect(await readyz()).toEqual({ status: 200, body: expect.objectContaining({ ready: true, listeners: { '1': 'ok', '2': 'ok' } }) });
  });

  it('a listener process killed mid-DATA answered no 250; it is started again and the retry is accepted', async () => {
    const raw = await signedLetter({ title: 'Killed mid-DATA' });
    const before = await counts();
    const { client, rest } = await halfwayThroughData(raw);
    const listener = await listenerThatTook(before);
    const pid = pidOf(listener);
    const connections = await metric('letter_intake_smtp_connections_total');
    const replies = await metric('letter_intake_smtp_replies_total{code="250",command="DATA"}');

    process.kill(pid, 'SIGKILL');
    const reply = await client.read();

    expect(reply.code).toBe(0); // the connection dropped: no 250, so the MTA tries again
    expect(rest.length).toBeGreaterThan(0);
    const exited = await proc.waitForLog((l) => l.event === 'smtp.listener_exited' && l.pid === pid);
    expect(exited).toMatchObject({ listener: Number(listener), signal: 'SIGKILL' });
    const restarted = await proc.waitForLog((l) => l.event === 'smtp.listener_restarted' && l.listener === Number(listener));
    expect(restarted.pid).not.toBe(pid);
    await proc.waitForLog((l) => l.event === 'smtp.listener_started' && l.pid === restarted.pid);
    expect(await metric(`letter_intake_smtp_listener_restarts_total{listener="${listener}"}`)).toBe(1);
    // the dead process's counters are carried into its slot: the sums never go down
    expect(await metric('letter_intake_smtp_connections_total')).toBe(connections);
    expect(await metric('letter_intake_smtp_replies_total{code="250",command="DATA"}')).toBe(replies);
    expect(await metric('process_start_time_seconds')).toBeGreaterThan(0);
    expect(await readyz()).toEqual({ status: 200, body: expect.objectContaining({ ready: true, listeners: { '1': 'ok', '2': 'ok' } }) });

    const retry = await sendOnce(port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw });
    expect(retry.data?.code).toBe(250);
    const intakeId = /queued as (\S+)/.exec(retry.data?.text ?? '')?.[1];
    const accepted = await proc.waitForLog((l) => l.event === 'smtp.accepted' && l.intakeId === intakeId);
    expect(accepted.duplicate).toBe(false); // the killed session left no record behind
  });

  it('a changed senders file and SIGHUP reload the sender directory in every listener process', async () => {
    const directory = JSON.parse(readFileSync(sendersFile, 'utf8')) as { senders: unknown[] };
    const billing = {
      senderId: '0b7e2a5c-6d1f-4e8a-9c3b-2a1d0e9f8c7b',
      companyNameEn: 'Acme Billing',
      addresses: ['billing@acme.example'],
      apiClientId: 'acme-billing-client',
      apiClientSecret: 'acme-billing-secret',
    };
    const [oldVersion] = await directoryVersions();
    expect(await directoryVersions()).toEqual([oldVersion, oldVersion]);
    writeFileSync(sendersFile, JSON.stringify({ senders: [...directory.senders, billing] }));
    for (const listener of ['1', '2']) {
      await proc.waitForLog(
        (l) => l.event === 'reload.done' && l.what === 'smtp-senders' && l.trigger === 'file-change' && l.listener === Number(listener),
      );
    }
    const [newVersion] = await directoryVersions();
    expect(newVersion).not.toBe(oldVersion);
    expect(await directoryVersions()).toEqual([newVersion, newVersion]);
    const before = await counts();
    const replies = [];
    for (let i = 0; i < 4; i++) {
      const raw = await signedLetter({ title: `New sender ${i}`, from: 'Acme Billing <billing@acme.example>' });
      replies.push(await sendOnce(port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw }));
    }
    expect(replies.map((r) => r.data?.code)).toEqual([250, 250, 250, 250]);
    expect(await served('1')).toBeGreaterThan(before['1'] ?? 0);
    expect(await served('2')).toBeGreaterThan(before['2'] ?? 0);

    const seen = proc.logs.length;
    proc.child.kill('SIGHUP');
    for (const listener of ['1', '2']) {
      await proc.waitForLog(
        (l) => proc.logs.indexOf(l) >= seen && l.what === 'smtp-senders' && l.trigger === 'SIGHUP' && l.listener === Number(listener),
      );
    }
  });

  it('a listener process that cannot start again is tried again, each time later, and listens once the cause is gone', async () => {
    const good = readFileSync(sendersFile, 'utf8');
    const pid = pidOf('1');
    const exitsOfOne = (): Record<string, unknown>[] => proc.logs.filter((l) => l.event === 'smtp.listener_exited' && l.listener === 1);
    const seen = exitsOfOne().length;

    writeFileSync(sendersFile, '{ "senders": [ { "companyNameEn": "no id" } ] }');
    process.kill(pid, 'SIGKILL');
    await proc.waitForLog(() => exitsOfOne().length >= seen + 3);
    const notReady = await readyz();
    writeFileSync(sendersFile, good);
    const back = proc.logs.length;
    await proc.waitForLog((l) => proc.logs.indexOf(l) >= back && l.event === 'smtp.listener_restarted' && l.listener === 1);

    const delays = exitsOfOne()
      .slice(seen, seen + 3)
      .map((l) => Number(l.restartInMs));
    expect(delays[1]).toBe(2 * (delays[0] ?? 0));
    expect(delays[2]).toBe(2 * (delays[1] ?? 0));
    expect(proc.logs.some((l) => l.event === 'smtp.listener_restart_failed' && l.listener === 1)).toBe(true);
    expect(notReady).toEqual({ status: 503, body: expect.objectContaining({ listeners: { '1': 'failing', '2': 'ok' } }) });
    expect(await readyz()).toEqual({ status: 200, body: expect.objectContaining({ ready: true, listeners: { '1': 'ok', '2': 'ok' } }) });
  });

  it('a hung listener process, asked and silent for HUNG_AFTER_MS, is killed and started again', async () => {
    const pid = pidOf('2');
    const seen = proc.logs.length;
    const since = (l: Record<string, unknown>): boolean => proc.logs.indexOf(l) >= seen;

    process.kill(pid, 'SIGSTOP');
    const exited = await proc
      .waitForLog((l) => {
        void readyz();
        return l.event === 'smtp.listener_exited' && l.pid === pid;
      })
      .finally(() => {
        for (const still of alive([pid])) process.kill(still, 'SIGCONT');
      });

    expect(proc.logs.some((l) => l.event === 'smtp.listener_hung' && l.pid === pid)).toBe(true);
    expect(exited).toMatchObject({ listener: 2, signal: 'SIGKILL' });
    await proc.waitForLog((l) => since(l) && l.event === 'smtp.listener_restarted' && l.listener === 2);
    await proc.waitForLog((l) => since(l) && l.event === 'smtp.listener_started' && l.listener === 2);
    expect(await readyz()).toEqual({ status: 200, body: expect.objectContaining({ ready: true, listeners: { '1': 'ok', '2': 'ok' } }) });
  });

  it('GROUP_COMMIT: a listener process whose directory fsync failed exits and is started again with a sound store', async () => {
    const pids = [pidOf('1'), pidOf('2')];
    const seen = proc.logs.length;

    writeFileSync(join(faults, 'fail-dir-fsync'), '');
    const raw = await signedLetter({ title: 'Fsync fails' });
    const failed = await sendOnce(port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw }).finally(() =>
      rmSync(join(faults, 'fail-dir-fsync'), { force: true }),
    );

    expect(failed.data?.code).toBe(451);
    const broken = await proc.waitForLog((l) => proc.logs.indexOf(l) >= seen && l.event === 'smtp.listener_store_broken');
    expect(pids).toContain(broken.pid);
    const exited = await proc.waitForLog((l) => l.event === 'smtp.listener_exited' && l.pid === broken.pid);
    expect(exited.code).toBe(75);
    await proc.waitForLog((l) => proc.logs.indexOf(l) >= seen && l.event === 'smtp.listener_started' && l.listener === broken.listener);
    const replies = [];
    for (let i = 0; i < 4; i++) {
      const letter = await signedLetter({ title: `After the fsync ${i}` });
      replies.push(await sendOnce(port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw: letter }));
    }
    expect(replies.map((r) => r.data?.code)).toEqual([250, 250, 250, 250]);
    expect(await readyz()).toEqual({ status: 200, body: expect.objectContaining({ ready: true, listeners: { '1': 'ok', '2': 'ok' } }) });
  });

  it('a listener process sent SIGTERM stops taking connections at once, finishes its DATA, and is started again', async () => {
    const raw = await signedLetter({ title: 'One listener stops' });
    const before = await counts();
    const { client, rest } = await halfwayThroughData(raw);
    const listener = await listenerThatTook(before);
    const pid = pidOf(listener);

    const seen = proc.logs.length;
    process.kill(pid, 'SIGTERM');
    await proc.waitForLog((l) => l.event === 'smtp.listener_closing' && l.pid === pid);
    const greetings = [];
    for (let i = 0; i < 6; i++) {
      const { client: other, greeting } = await SmtpClient.open(port);
      greetings.push(greeting.code);
      other.close();
    }
    client.write(rest);
    client.write(rest.subarray(-2).toString('latin1') === '\r\n' ? '.\r\n' : '\r\n.\r\n');
    const reply = await client.read();

    expect(greetings).toEqual(Array(6).fill(220));
    expect(reply.code).toBe(250);
    await proc.waitForLog((l) => proc.logs.indexOf(l) >= seen && l.event === 'smtp.listener_started' && l.listener === Number(listener));
    await expect.poll(async () => (await readyz()).status, { timeout: 20_000 }).toBe(200);
  });

  it('SIGTERM: a DATA in flight is answered 250, then every listener process and the primary exit', async () => {
    const raw = await signedLetter({ title: 'In flight at shutdown' });
    const { client, rest } = await halfwayThroughData(raw);
    const pids = [pidOf('1'), pidOf('2')];

    proc.child.kill('SIGTERM');
    for (const listener of ['1', '2']) await proc.waitForLog((l) => l.event === 'smtp.listener_closing' && l.listener === Number(listener));
    client.write(rest);
    client.write(rest.subarray(-2).toString('latin1') === '\r\n' ? '.\r\n' : '\r\n.\r\n');
    const reply = await client.read();

    expect(reply.code).toBe(250);
    expect(await proc.exited).toBe(0);
    const alive = pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
  });
});

describe('the smtp role with two listener processes', () => {
  it('serves /readyz for both on its ops port, accepts mail, and stops them on SIGTERM', async () => {
    const opsPort = await freePort();
    const role = runCli(['smtp'], testEnv(prefix, { OPS_HTTP_PORT: String(opsPort), SMTP_PROCESSES: '2' }));
    try {
      const started = await role.waitForLog((l) => l.event === 'smtp.listeners_started');
      const response = await fetch(`http://127.0.0.1:${opsPort}/readyz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ready: true, listeners: { '1': 'ok', '2': 'ok' } });
      const raw = await signedLetter({ title: 'Through the smtp role' });
      const replies = await sendOnce(Number(started.port), { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw });
      expect(replies.data?.code).toBe(250);
    } finally {
      expect(await role.stop()).toBe(0);
    }
  });

  it('stops at once while a listener process is still starting', async () => {
    const opsPort = await freePort();
    const held = mkdtempSync(join(tmpdir(), 'letter-intake-held-'));
    const role = runCli(
      ['smtp'],
      testEnv(prefix, { ...faultEnv, LISTENER_FAULTS_DIR: held, OPS_HTTP_PORT: String(opsPort), SMTP_PROCESSES: '2' }),
    );
    try {
      await role.waitForLog((l) => l.event === 'smtp.listeners_started');
      // each process writes its own lines: listener 1's may come after the primary's summary
      const pid = Number((await role.waitForLog((l) => l.event === 'smtp.listener_started' && l.listener === 1)).pid);
      writeFileSync(join(held, 'hold-start'), '');
      process.kill(pid, 'SIGKILL');
      await role.waitForLog((l) => l.event === 'smtp.listener_exited' && l.pid === pid);
      await role.waitForLog(() => existsSync(join(held, 'held')));
      const heldPid = Number(readFileSync(join(held, 'held'), 'utf8'));

      expect(await role.stop()).toBe(0);
      expect(alive([heldPid])).toEqual([]);
    } finally {
      role.child.kill('SIGKILL');
      rmSync(held, { recursive: true, force: true });
    }
  });

  it('a SIGTERM to the whole process group, while the primary is still closing its portal, starts no listener process again', async () => {
    const groupDir = mkdtempSync(join(tmpdir(), 'letter-intake-group-'));
    const role = runCli(['start'], testEnv(prefix, { DATA_DIR: groupDir, OPS_HTTP_PORT: '0', SANDBOX_PORT: '0', SMTP_PROCESSES: '2' }), {
      detached: true,
    });
    const held = new Socket();
    try {
      const ready = await role.waitForLog((l) => l.event === 'start.ready');
      const pids = await listenerPids(role, 2);
      // A request whose body never ends holds the portal's close, the first part the primary closes.
      const portal = new URL(String(ready.portal));
      await new Promise<void>((done) => held.connect(Number(portal.port), portal.hostname, done));
      held.write(
        `POST /portal/login HTTP/1.1\r\nHost: ${portal.host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nemail=`,
      );

      process.kill(-Number(role.child.pid), 'SIGTERM');
      await expect.poll(() => alive(pids), { timeout: 20_000 }).toEqual([]);
      held.destroy();

      expect(await role.exited).toBe(0);
      expect(role.logs.filter((l) => l.event === 'smtp.listener_exited' || l.event === 'smtp.listener_restarted')).toEqual([]);
    } finally {
      held.destroy();
      role.child.kill('SIGKILL');
      rmSync(groupDir, { recursive: true, force: true });
    }
  });

  it('a SIGTERM to the whole process group stops every process and starts none again', async () => {
    const opsPort = await freePort();
    const role = runCli(['smtp'], testEnv(prefix, { OPS_HTTP_PORT: String(opsPort), SMTP_PROCESSES: '2' }), { detached: true });
    try {
      // ready once started: its signal handlers are in place
      await expect.poll(async () => (await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status, { timeout: 20_000 }).toBe(200);
      const pids = await listenerPids(role, 2);
      process.kill(-Number(role.child.pid), 'SIGTERM');

      expect(await role.exited).toBe(0);
      expect(role.logs.filter((l) => l.event === 'smtp.listener_exited' || l.event === 'smtp.listener_restarted')).toEqual([]);
      expect(alive(pids)).toEqual([]);
    } finally {
      role.child.kill('SIGKILL');
    }
  });
});

function alive(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}
