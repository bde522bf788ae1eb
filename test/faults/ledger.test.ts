// The books after a storm: a few hundred messages (about one in ten deliberately bad) sent
// through real processes while faults strike at random moments (worker SIGKILL + restart, Redis
// SIGKILL + restart on its append-only file, Sender API outages of a few seconds). Then the ledger
// must balance: answered 250 = intakes recorded = submitted + rejected + failed, and no letter
// exists twice. The test is the sending MTA: it re-sends after a 4xx or a lost connection.
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPdf, buildZip } from '../../fixtures/pdf.js';
import { redisBlobIndex } from '../../src/intake/blob-index.js';
import { INTAKE_QUEUE } from '../../src/intake/queue.js';
import { INTAKE_STATES, type IntakeRecord } from '../../src/intake/record.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { fileRawStore } from '../../src/raw-store/file-store.js';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { sweepOrphans } from '../../src/raw-store/sweep.js';
import { freePort } from '../../src/runtime/redis.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, intakeIdOf, testEnv, testRawDir } from '../helpers/gateway.js';
import { type RoleProcess, startRole } from '../helpers/processes.js';
import { blobsIn, storedMessage } from '../helpers/raw-stores.js';
import { randomPrefix } from '../helpers/redis.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { deliverUntilFinal, type Outcome } from '../helpers/retrying-mta.js';
import { FAULT_SEED, mulberry32 } from '../helpers/seeded-random.js';
import { signedLetter } from '../helpers/signed-letter.js';

const MESSAGES = Number(process.env.LEDGER_MESSAGES ?? 300);
const random = mulberry32(FAULT_SEED);
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

const KINDS = ['good', 'large', 'unsigned', 'not-a-pdf', 'unregistered'] as const;
type Kind = (typeof KINDS)[number];
/** What the gateway must do with each kind: the SMTP answer, then the intake's end. */
const EXPECTED: Record<Kind, { smtp: 250 | 550; end?: 'submitted' }> = {
  good: { smtp: 250, end: 'submitted' },
  /** 1.5 MB: past the listener's 256 KiB batch, so spooled to Redis while it arrives. */
  large: { smtp: 250, end: 'submitted' },
  unsigned: { smtp: 550 },
  // refused in the session by the message's own rules: no intake
  'not-a-pdf': { smtp: 550 },
  unregistered: { smtp: 550 },
};

interface Message {
  readonly kind: Kind;
  readonly title: string;
  readonly raw: Buffer;
}

async function makeMessage(kind: Kind, n: number): Promise<Message> {
  const title = `Ledger ${n} ${kind} (${FAULT_SEED})`;
  const from = kind === 'unregistered' ? 'billing@acme.example' : 'letters@acme.example';
  const signed = await signedLetter({
    title,
    from: `Acme <${from}>`,
    pdf:
      kind === 'not-a-pdf'
        ? buildZip('letter.txt', title)
        : kind === 'large'
          ? Buffer.concat([buildPdf(title), Buffer.from(`%${'~'.repeat(1_100_000)}\n`)])
          : buildPdf(title),
  });
  // Unsigned: the same letter without the DKIM-Signature field signedLetter put in front of From.
  const raw = kind === 'unsigned' ? signed.subarray(signed.indexOf('From: Acme <')) : signed;
  return { kind, title, raw };
}

function mix(count: number): Kind[] {
  const bad: Kind[] = ['unsigned', 'not-a-pdf', 'unregistered'];
  // One in ten bad (the three kinds in turn), one in thirty large, the rest good; then shuffled.
  const kinds = Array.from(
    { length: count },
    (_, i): Kind => (i % 10 === 9 ? (bad[Math.floor(i / 10) % 3] ?? 'good') : i % 30 === 4 ? 'large' : 'good'),
  );
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j] ?? 'good', kinds[i] ?? 'good'];
  }
  return kinds;
}

let redis: RedisServer;
let reader: Redis;
let sandbox: RunningSandbox;
const roles: RoleProcess[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  reader = new Redis(redis.url, { maxRetriesPerRequest: null }); // waits out a Redis restart
  reader.on('error', () => {}); // refused while Redis is down; it reconnects by itself
  const directory = loadSenderDirectory(join(FIXTURE_DIR, 'senders.json'), {});
  sandbox = await startSandbox({ directory, clock: Date.now, logger: createLogger({ level: 'silent' }), host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await Promise.all(roles.map((r) => r.stop('SIGKILL')));
  reader.disconnect();
  await sandbox.close();
  await redis.destroy();
});

describe('the ledger after a load run with faults at random moments', () => {
  it(`${MESSAGES} messages: every 250 is one intake, every intake ended, no letter twice`, async () => {
    process.stdout.write(`ledger: FAULT_SEED=${FAULT_SEED}\n`);
    const prefix = randomPrefix();
    const port = await freePort();
    const env = testEnv(prefix, {
      REDIS_URL: redis.url,
      SMTP_PORT: String(port),
      SENDER_API_URL: sandbox.url,
      OPS_HTTP_PORT: '0',
      SMTP_MAX_CLIENTS_PER_IP: '100',
      WORKER_LOCK_MS: '2000',
      WORKER_BACKOFF_BASE_MS: '100',
      WORKER_BACKOFF_CAP_MS: '1000',
      WORKER_ATTEMPTS: '30',
    });
    // The directory the role processes write messages to (testEnv's RAW_STORE_URL).
    const rawStore = fileRawStore({ dir: testRawDir(prefix), timeoutMs: 5000 });
    const store = new IntakeStore(reader, prefix, { rawMs: 3_600_000, recordMs: 3_600_000 });
    const start = async (role: 'smtp' | 'worker') => {
      const proc = await startRole(role, env);
      roles.push(proc);
      return proc;
    };
    const listener = await start('smtp');
    let worker = await start('worker');
    const messages = await Promise.all(mix(MESSAGES).map((kind, i) => makeMessage(kind, i + 1)));
    const started = Date.now();

    // Sending: 6 MTA connections at a time.
    const outcomes: Outcome[] = [];
    let next = 0;
    let answered = 0;
    const lane = async (): Promise<void> => {
      for (let i = next++; i < messages.length; i = next++) {
        const message = messages[i];
        if (message === undefined) continue;
        outcomes[i] = await deliverUntilFinal(port, message.raw);
        answered += 1;
      }
    };
    let sendingDone = false;
    const sending = Promise.all(Array.from({ length: 6 }, lane)).finally(() => {
      sendingDone = true;
    });

    // Faults, one at a time, each after a random number of further answers, until sending ends.
    const faults = { 'worker SIGKILL + restart': 0, 'Redis SIGKILL + restart': 0, 'API outage': 0, 'outage seconds': 0 };
    let outagesOpen = 0;
    const outagesEnding: Promise<void>[] = [];
    const refused451 = () => listener.logs.filter((l) => l.event === 'smtp.refused' && l.code === 451).length;
    while (!sendingDone) {
      const target = answered + 10 + Math.floor(random() * 30);
      while (!sendingDone && answered < target) await delay(50);
      if (sendingDone) break;
      const pick = random();
      if (pick < 1 / 3) {
        await worker.stop('SIGKILL');
        worker = await start('worker');
        faults['worker SIGKILL + restart'] += 1;
      } else if (pick < 2 / 3) {
        const before = refused451();
        await redis.kill();
        // Down until a client has been told to try later (or 5 s passed), then back on the same data.
        for (const until = Date.now() + 5000; refused451() === before && Date.now() < until; ) await delay(50);
        await redis.restart();
        faults['Redis SIGKILL + restart'] += 1;
      } else {
        // An outage lasts a while, not a number of calls: while the circuit holds the letters, only
        // its trial calls, so a count of 503s would last as many trial intervals.
        // Sending goes on meanwhile; overlapping outages end with the last of them.
        const seconds = 2 + Math.floor(random() * 6);
        if (outagesOpen++ === 0) sandbox.store.injectFault({ status: 503, count: 10_000 });
        outagesEnding.push(
          delay(seconds * 1000).then(() => {
            if (--outagesOpen === 0) sandbox.store.clearFaults();
          }),
        );
        faults['API outage'] += 1;
        faults['outage seconds'] += seconds;
      }
    }
    await sending;
    await Promise.all(outagesEnding);

    // Every intake ends (nothing left received, queued or processing) and the queue is empty.
    const queue = new Queue(INTAKE_QUEUE, { connection: reader, prefix });
    const deadline = Date.now() + 180_000;
    for (;;) {
      const counts = await store.countByState();
      const jobs = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      const open = (['received', 'queued', 'processing'] as const).map((s) => counts.get(s) ?? 0);
      if ([...open, ...Object.values(jobs)].every((n) => n === 0)) break;
      if (Date.now() > deadline) {
        // What the worker last said, to tell a dead process from a worker that stopped taking jobs.
        const tail = worker.logs.slice(-40).map((l) => JSON.stringify(l).slice(0, 400));
        process.stdout.write(`worker exit code: ${worker.child.exitCode ?? worker.child.signalCode ?? 'running'}\n${tail.join('\n')}\n`);
        throw new Error(`intakes did not end: ${JSON.stringify({ open, jobs })}`);
      }
      await delay(200);
    }
    const tookMs = Date.now() - started;
    const records = new Map<string, IntakeRecord>();
    for (const state of INTAKE_STATES) for (const r of await store.list(state, 100_000)) records.set(r.intakeId, r);
    const letters = sandbox.store.allLetters();
    const leftBehind = (await blobsIn(rawStore)).incomplete.length;
    // The sweep, as a worker runs it once they are old enough: no incomplete write survives it,
    // and no blob an intake points at is taken.
    const index = redisBlobIndex(reader, prefix);
    await sweepOrphans({
      store: rawStore,
      referenced: index.referenced,
      forget: index.forget,
      clock: () => Date.now() + 2 * 3600_000,
      orphanAfterMs: 3600_000,
    });
    const afterSweep = await blobsIn(rawStore);

    // The books.
    const byKind = (kind: Kind) => messages.flatMap((m, i) => (m.kind === kind ? [{ m, o: outcomes[i] }] : []));
    const accepted = new Set(outcomes.flatMap((o) => (o.final.code === 250 ? [intakeIdOf(o.final.text)] : [])));
    const bySubject = new Map([...records.values()].map((r) => [r.subject, r]));
    const inState = (state: string) => [...records.values()].filter((r) => r.state === state);
    const submitted = inState('submitted');
    const rejected = inState('rejected');
    const failed = inState('failed');
    const titlesTwice = [...Map.groupBy(letters, (l) => l.title)].filter(([, ls]) => ls.length > 1).map(([t]) => t);
    const letterById = Map.groupBy(letters, (l) => l.id);
    const retried = outcomes.flatMap((o) => o.retried);
    const reasons = Map.groupBy(rejected, (r) => r.reasonCode ?? '?');
    const ledger: [string, number | string][] = [
      ['messages sent', messages.length],
      ['  answered 550 (unsigned, or refused by a rule)', outcomes.filter((o) => o.final.code === 550).length],
      ['  answered 250 (distinct intakes)', accepted.size],
      ['  re-sent after 451', retried.filter((c) => c === 451).length],
      ['  re-sent after a lost connection', retried.filter((c) => c === 0).length],
      ['intakes recorded', records.size],
      ['  submitted', submitted.length],
      ['    of them large (written while arriving)', submitted.filter((r) => r.sizeBytes > 1024 * 1024).length],
      ...[...reasons].map(([code, rs]): [string, number] => [`  rejected ${code}`, rs.length]),
      ['  failed', failed.length],
      ['letters at the API', letters.length],
      ['  PendingApproval', letters.filter((l) => l.status === 'PendingApproval').length],
      ['  titles with more than one letter', titlesTwice.length],
      ['incomplete writes left behind (swept)', leftBehind],
      ['run time (s)', (tookMs / 1000).toFixed(1)],
    ];
    const table = (rows: [string, number | string][]) => rows.map(([k, v]) => `  ${k.padEnd(40)} ${String(v).padStart(6)}`).join('\n');
    process.stdout.write(`\nLEDGER\n${table(ledger)}\nFAULTS INJECTED\n${table(Object.entries(faults))}\n`);
    for (const f of failed) process.stdout.write(`  failed ${f.intakeId}: ${f.errorCode} ${f.reason}\n`);
    const unexplained = [...accepted].filter((id) => records.get(id)?.state !== 'submitted' && records.get(id)?.state !== 'rejected');
    for (const id of unexplained.slice(0, 5)) process.stdout.write(await explain(store, rawStore, id));

    // Answered 250 = intakes recorded = submitted + rejected + failed.
    expect(records.size).toBe(accepted.size);
    expect([...accepted].filter((id) => !records.has(id))).toEqual([]);
    expect(submitted.length + rejected.length + failed.length).toBe(records.size);
    expect(failed.map((f) => `${f.intakeId}: ${f.errorCode} ${f.reason}`)).toEqual([]);
    // No intake was reported failed on the way while its job was still being retried (nor in a run a replay ended).
    expect(
      [...records.values()].filter((r) => r.timeline.failed !== undefined || r.earlierRuns !== undefined).map((r) => r.intakeId),
    ).toEqual([]);
    // Each message got the answer and the end its kind calls for.
    for (const kind of KINDS) {
      const { smtp, end } = EXPECTED[kind];
      const got = byKind(kind).map(({ m, o }) => {
        const record = o?.final.code === 250 ? records.get(intakeIdOf(o.final.text)) : bySubject.get(m.title);
        return { code: o?.final.code, end: record?.state === 'rejected' ? record.reasonCode : record?.state };
      });
      expect(got, kind).toEqual(byKind(kind).map(() => ({ code: smtp, end })));
    }
    // No duplicate: one letter per title, and each submitted record's letter exists exactly once.
    expect(titlesTwice).toEqual([]);
    expect(letters.length).toBe(submitted.length);
    const wrong = submitted.filter((r) => {
      const found = letterById.get(r.letterId ?? '') ?? [];
      return found.length !== 1 || found[0]?.status !== 'PendingApproval' || found[0]?.title !== r.subject;
    });
    expect(wrong.map((r) => r.intakeId)).toEqual([]);
    // A message's bytes written by a listener that could not finish it are swept; what intakes point at stays.
    expect(afterSweep.incomplete).toEqual([]);
    const lost = [...records.values()].filter((r) => r.rawKey !== undefined && !afterSweep.committed.includes(r.rawKey));
    expect(lost.map((r) => r.intakeId)).toEqual([]);
    // The storm did happen (else the books prove little).
    expect(faults['worker SIGKILL + restart'] + faults['Redis SIGKILL + restart'] + faults['API outage']).toBeGreaterThanOrEqual(3);
  });
});

/** Everything known about one intake, for a ledger that does not balance. */
async function explain(store: IntakeStore, rawStore: RawStore, id: string): Promise<string> {
  const title = (await store.get(id))?.subject ?? '?';
  const indexes = await Promise.all(INTAKE_STATES.map(async (s) => [s, await reader.zscore(store.keys.stateIndex(s), id)]));
  const logs = roles.flatMap((r, i) =>
    r.logs.filter((l) => l.intakeId === id).map((l) => `    [role ${i}] ${l.event} ${l.msg} ${l.errorCode ?? ''} ${l.attempt ?? ''}`),
  );
  return [
    `INTAKE ${id} "${title}"`,
    `  record: ${JSON.stringify(await reader.hgetall(store.keys.record(id)))}`,
    `  in state indexes: ${JSON.stringify(indexes.filter(([, score]) => score !== null))}`,
    `  raw kept: ${(await storedMessage(store, rawStore, id)) !== undefined}`,
    `  letters: ${JSON.stringify(
      sandbox.store
        .allLetters()
        .filter((l) => l.title === title)
        .map((l) => [l.id, l.status]),
    )}`,
    ...logs,
    '',
  ].join('\n');
}
