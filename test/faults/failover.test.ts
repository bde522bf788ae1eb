// Losing the Redis primary mid-load, as real processes on loopback: a primary, two replicas and
// three Sentinels (down-after-milliseconds 2000, failover-timeout 10000), two listeners and two
// workers configured with REDIS_SENTINELS, a sandbox Sender API that counts letters per intake,
// and a steady load of signed letters from MTAs that re-send the same bytes after any 4xx or lost
// connection (to either listener, as to two MX hosts). About a second before the primary is
// SIGKILLed both replicas are SIGSTOPped, and SIGCONTed after the kill: on loopback replication
// is too fast for a loss to happen by luck. A stopped replica's kernel still takes in the stream
// (and hands it over on SIGCONT), so the primary also drops its replicas' connections as they
// stop (CLIENT KILL TYPE replica): the writes of that second reach no replica, as when the
// replicas' network is gone.
//
// With REDIS_REPLICAS_ACK=1 nothing answered 250 is lost, no intake makes a second letter, the
// listeners answer 451 while the replicas are stopped, and the longest time without a 250 stays
// under 10 s. With REDIS_REPLICAS_ACK=0 the failover loses answered 250s from Redis (counted and
// printed: the reason for the setting), and the raw store is the record of last resort
// (docs/design.md §21): after `letter-intake recover` every message answered 250 has its intake
// again and ends as exactly one PendingApproval letter, or failed with its reason (the
// operator's, replayable), never two letters.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { INTAKE_STATES, type IntakeRecord } from '../../src/intake/record.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { freePort } from '../../src/runtime/redis.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, intakeIdOf, REPO, testEnv } from '../helpers/gateway.js';
import { type RoleProcess, runCommand, startRole } from '../helpers/processes.js';
import { randomPrefix } from '../helpers/redis.js';
import { offer } from '../helpers/retrying-mta.js';
import { type SentinelSet, startSentinelSet } from '../helpers/sentinel-set.js';
import { signedLetter } from '../helpers/signed-letter.js';

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** MTA lanes sending at once, and how long the load runs before and after the failover. */
const LANES = 4;
const STEADY_BEFORE_MS = 6000;
const STEADY_AFTER_MS = 12_000;
/** How long the replicas are stopped before the kill. */
const STOPPED_BEFORE_KILL_MS = 1000;

interface Attempt {
  /** When the MTA had the answer. */
  readonly at: number;
  readonly code: number;
}

interface Delivery {
  readonly title: string;
  readonly attempts: Attempt[];
  /** The intake id of the final 250, if it came. */
  intakeId?: string;
}

interface Ledger {
  readonly sent: number;
  readonly answered250: number;
  readonly replies451: number;
  readonly replies451WhileStopped: number;
  /** Letters submitted (drafts left unsubmitted aside) for the messages sent. */
  readonly letters: number;
  /** Titles with more than one submitted letter. */
  readonly duplicates: number;
  /** Drafts never submitted (a run's draft its intake's re-run did not take over). */
  readonly strayDrafts: number;
  /** Answered 250, and in the end no record or no letter. */
  readonly lost: number;
  readonly recordsLost: number;
  readonly lettersLost: number;
  /** Answered 250 and with no record on the new primary once the failover's intakes had ended (before any recover). */
  readonly recordsLostInFailover: number;
  /** Answered 250 and ended failed (their reasons are printed). */
  readonly failed: number;
  readonly gapSeconds: number;
  /** Times a worker's queue consumer took no job while jobs were ready, and was started again. */
  readonly consumersRestarted: number;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/**
 * `recover`: once the intakes on the new primary have ended, `letter-intake recover` runs and its
 * intakes end too; the ledger is taken after it.
 */
async function runFailover(replicasAck: number, recover = false): Promise<{ ledger: Ledger; ends: DeliveryEnd[] }> {
  const set: SentinelSet = await startSentinelSet({ replicas: 2, sentinels: 3, downAfterMs: 2000, failoverTimeoutMs: 10_000 });
  cleanups.push(() => set.destroy());
  const directory = loadSenderDirectory(join(FIXTURE_DIR, 'senders.json'), {});
  const sandbox: RunningSandbox = await startSandbox({
    directory,
    clock: Date.now,
    logger: createLogger({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
  });
  cleanups.push(() => sandbox.close());
  const prefix = randomPrefix();
  const ports = [await freePort(), await freePort()];
  const envFor = (port: number) =>
    testEnv(prefix, {
      REDIS_URL: '', // testEnv's default: unset, the Sentinels name the primary
      ...set.env,
      REDIS_REPLICAS_ACK: String(replicasAck),
      // The replicas' WAIT gives up within the second they are stopped.
      ENQUEUE_TIMEOUT_MS: '800',
      SMTP_PORT: String(port),
      SENDER_API_URL: sandbox.url,
      OPS_HTTP_PORT: '0',
      SMTP_MAX_CLIENTS_PER_IP: '100',
      WORKER_LOCK_MS: '5000',
      WORKER_SWEEP_AGE_MS: '3000',
      WORKER_SWEEP_INTERVAL_MS: '1000',
      WORKER_ATTEMPTS: '30',
      // A worker whose BullMQ consumer stopped taking jobs after the failover is started again
      // within seconds (src/runtime/intake-consumer.ts): counted in the ledger.
      WORKER_FETCH_WATCH_MS: '10000',
    });
  const roles: RoleProcess[] = [];
  cleanups.push(async () => {
    await Promise.all(roles.map((r) => r.stop('SIGKILL')));
  });
  for (const port of ports) roles.push(await startRole('smtp', envFor(port)));
  for (const port of ports) roles.push(await startRole('worker', envFor(port)));

  // The MTAs: each lane sends letters one after another until told to stop starting new ones.
  const deliveries: Delivery[] = [];
  let sending = true;
  let n = 0;
  const lane = async (laneNo: number): Promise<void> => {
    while (sending) {
      n += 1;
      const title = `Failover ${replicasAck} ${n}`;
      const raw = await signedLetter({ title });
      const delivery: Delivery = { title, attempts: [] };
      deliveries.push(delivery);
      for (let tries = 0; ; tries += 1) {
        const port = ports[(laneNo + tries) % ports.length] ?? 0;
        const reply = await offer(port, raw);
        delivery.attempts.push({ at: Date.now(), code: reply.code });
        if (reply.code === 250) {
          delivery.intakeId = intakeIdOf(reply.text);
          break;
        }
        if (reply.code >= 500) throw new Error(`${title}: ${reply.code} ${reply.text}`);
        await delay(200); // the MTA's retry interval
      }
    }
  };
  const lanes = Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));

  await delay(STEADY_BEFORE_MS);
  const [stopReplica1, stopReplica2] = set.replicas;
  const oldPrimary = set.primary.port;
  const stoppedAt = Date.now();
  stopReplica1?.pause();
  stopReplica2?.pause();
  const admin = new Redis({ port: oldPrimary, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
  admin.on('error', () => {});
  try {
    await admin.call('CLIENT', 'KILL', 'TYPE', 'replica');
  } finally {
    admin.disconnect();
  }
  await delay(STOPPED_BEFORE_KILL_MS);
  const killedAt = Date.now();
  await set.primary.kill();
  stopReplica1?.resume();
  stopReplica2?.resume();
  const newPrimary = await set.waitForNewPrimary(oldPrimary, 30_000);
  process.stdout.write(
    `failover (REDIS_REPLICAS_ACK=${replicasAck}): primary ${oldPrimary} → ${newPrimary} in ${Date.now() - killedAt} ms\n`,
  );
  await delay(STEADY_AFTER_MS);
  sending = false;
  await lanes;

  // Every intake on the new primary ends; a letter per intake is counted at the sandbox.
  const reader = new Redis({ port: newPrimary, host: '127.0.0.1', maxRetriesPerRequest: null });
  reader.on('error', () => {});
  cleanups.push(async () => reader.disconnect());
  const store = new IntakeStore(reader, prefix, { rawMs: 3_600_000, recordMs: 3_600_000 });
  const accepted = deliveries.filter((d) => d.intakeId !== undefined);
  let records = await allEnded(store).catch(async (err: unknown) => {
    await keepLogs(`failover-ack${replicasAck}`, roles);
    throw err;
  });
  const recordsLostInFailover = accepted.filter((d) => !records.has(d.intakeId ?? '')).length;
  if (recover) {
    const recovered = await runCommand(['recover'], envFor(ports[0] ?? 0));
    const summary = recovered.text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{'));
    process.stdout.write(`recover after the failover (exit ${recovered.code}): ${summary.join(' ')}\n`);
    expect(recovered.code).toBe(0);
    records = await allEnded(store);
  }

  const all = sandbox.store.allLetters();
  const letters = all.filter((l) => l.status !== 'Draft');
  const lettersByTitle = Map.groupBy(letters, (l) => l.title);
  const attempts = deliveries.flatMap((d) => d.attempts);
  const times250 = attempts.filter((a) => a.code === 250).map((a) => a.at);
  times250.sort((a, b) => a - b);
  const gapMs = Math.max(0, ...times250.slice(1).map((t, i) => t - (times250[i] ?? t)));
  const failed = [...records.values()].filter((r) => r.state === 'failed');
  for (const f of failed) process.stdout.write(`  failed ${f.intakeId}: ${f.errorCode} ${f.reason}\n`);
  const ends: DeliveryEnd[] = accepted.map((d) => ({
    title: d.title,
    state: records.get(d.intakeId ?? '')?.state ?? 'no record',
    errorCode: records.get(d.intakeId ?? '')?.errorCode,
    letters: (lettersByTitle.get(d.title) ?? []).map((l) => l.status),
  }));
  const ledger: Ledger = {
    sent: deliveries.length,
    answered250: accepted.length,
    replies451: attempts.filter((a) => a.code === 451).length,
    // Answered before the kill, while Redis ran: only a replica acknowledgement can refuse then.
    replies451WhileStopped: attempts.filter((a) => a.code === 451 && a.at >= stoppedAt && a.at < killedAt).length,
    letters: letters.filter((l) => deliveries.some((d) => d.title === l.title)).length,
    duplicates: [...lettersByTitle.values()].filter((ls) => ls.length > 1).length,
    strayDrafts: all.filter((l) => l.status === 'Draft' && deliveries.some((d) => d.title === l.title)).length,
    lost: accepted.filter((d) => !records.has(d.intakeId ?? '') || (lettersByTitle.get(d.title)?.length ?? 0) === 0).length,
    recordsLost: accepted.filter((d) => !records.has(d.intakeId ?? '')).length,
    lettersLost: accepted.filter((d) => (lettersByTitle.get(d.title)?.length ?? 0) === 0).length,
    recordsLostInFailover,
    failed: ends.filter((e) => e.state === 'failed').length,
    gapSeconds: Math.round(gapMs / 100) / 10,
    consumersRestarted: roles.flatMap((r) => r.logs).filter((l) => l.event === 'worker.not_fetching').length,
  };
  return { ledger, ends };
}

/** Writes each role's output under test-results/ (a failed run's evidence for the operator reading CI). */
async function keepLogs(name: string, roles: readonly RoleProcess[]): Promise<void> {
  const dir = resolve(REPO, 'test-results', name);
  await mkdir(dir, { recursive: true });
  for (const [i, role] of roles.entries()) await writeFile(join(dir, `${i}-${role.child.spawnargs.at(-1)}.log`), role.text());
  process.stdout.write(`the roles' output is kept in ${dir}\n`);
}

/** How a message answered 250 ended: its intake's state (and reason), and the letters of its title, by status. */
interface DeliveryEnd {
  readonly title: string;
  readonly state: string;
  readonly errorCode: string | undefined;
  readonly letters: readonly string[];
}

/** Waits until every intake under the store's prefix has ended; returns them all. */
async function allEnded(store: IntakeStore): Promise<Map<string, IntakeRecord>> {
  const records = new Map<string, IntakeRecord>();
  for (const until = Date.now() + 120_000; ; ) {
    records.clear();
    for (const state of INTAKE_STATES) for (const r of await store.list(state, 100_000)) records.set(r.intakeId, r);
    const open = [...records.values()].filter((r) => !['submitted', 'rejected', 'failed'].includes(r.state));
    if (open.length === 0) return records;
    if (Date.now() > until) throw new Error(`intakes did not end: ${open.map((r) => `${r.intakeId} ${r.state}`).join(', ')}`);
    await delay(500);
  }
}

function printLedger(title: string, ledger: Ledger): void {
  const rows: [string, number][] = [
    ['sent', ledger.sent],
    ['answered 250', ledger.answered250],
    ['answered 451 (all re-sent)', ledger.replies451],
    ['  of them while the replicas were stopped', ledger.replies451WhileStopped],
    ['letters at the Sender API', ledger.letters],
    ['intakes with a second letter', ledger.duplicates],
    ['drafts never submitted', ledger.strayDrafts],
    ['250s whose record the failover lost', ledger.recordsLostInFailover],
    ['250s lost in the end (no record, or no letter)', ledger.lost],
    ['  no intake record', ledger.recordsLost],
    ['  no letter made', ledger.lettersLost],
    ['250s ended failed', ledger.failed],
    ['longest time without a 250 (s)', ledger.gapSeconds],
    ['worker consumers started again (not fetching)', ledger.consumersRestarted],
  ];
  process.stdout.write(`\n${title}\n${rows.map(([k, v]) => `  ${k.padEnd(44)} ${String(v).padStart(6)}`).join('\n')}\n`);
}

describe('losing the Redis primary mid-load', () => {
  it('with REDIS_REPLICAS_ACK=1: nothing answered 250 is lost, no second letter, 451 while the replicas were stopped, no long gap', async () => {
    const { ledger } = await runFailover(1);
    printLedger('FAILOVER LEDGER, REDIS_REPLICAS_ACK=1', ledger);
    expect(ledger.lost).toBe(0);
    expect(ledger.recordsLost).toBe(0);
    expect(ledger.lettersLost).toBe(0);
    expect(ledger.duplicates).toBe(0);
    expect(ledger.letters).toBe(ledger.answered250);
    expect(ledger.replies451WhileStopped).toBeGreaterThan(0);
    expect(ledger.gapSeconds).toBeLessThan(10);
  });

  it('with REDIS_REPLICAS_ACK=0: the failover loses 250s from Redis; after recover each is one letter, or failed with its reason, never two', async () => {
    const { ledger, ends } = await runFailover(0, true);
    printLedger('FAILOVER LEDGER, REDIS_REPLICAS_ACK=0 (after recover)', ledger);
    // How many records the failover lost is a race (which writes of the stopped second reached
    // no replica): counted and printed, not asserted.
    expect(ledger.answered250).toBeGreaterThan(0);
    // Without acknowledgement, replicas that stop refuse nothing: no 451 before the kill.
    expect(ledger.replies451WhileStopped).toBe(0);
    // What the raw store promises (docs/design.md §21): accepted/ was written before every 250, so
    // recover brings back each intake Redis lost; only an id in letter/ is ever submitted, so no
    // intake has two letters. Each message answered 250 ends as exactly one PendingApproval letter,
    // or failed with its reason (a failover can leave a record whose job is gone: §14's JobLost),
    // with at most the one letter its letter/ names.
    expect(ledger.recordsLost).toBe(0);
    expect(ledger.duplicates).toBe(0);
    const unexplained = ends.filter(
      (e) =>
        !(e.state === 'submitted' && e.letters.length === 1 && e.letters[0] === 'PendingApproval') &&
        !(e.state === 'failed' && e.errorCode !== undefined && e.letters.length <= 1),
    );
    expect(unexplained).toEqual([]);
  });
});
