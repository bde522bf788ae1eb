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
// under 10 s. With REDIS_REPLICAS_ACK=0 the 250s lost are counted and printed: the reason for
// the setting.
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { INTAKE_STATES, type IntakeRecord } from '../../src/intake/record.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { freePort } from '../../src/runtime/redis.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, intakeIdOf, testEnv } from '../helpers/gateway.js';
import { type RoleProcess, startRole } from '../helpers/processes.js';
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
  readonly letters: number;
  readonly duplicates: number;
  /** Answered 250, and after the failover no record or no letter. */
  readonly lost: number;
  readonly recordsLost: number;
  readonly lettersLost: number;
  readonly gapSeconds: number;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function runFailover(replicasAck: number): Promise<Ledger> {
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
  const records = new Map<string, IntakeRecord>();
  for (const until = Date.now() + 120_000; ; ) {
    records.clear();
    for (const state of INTAKE_STATES) for (const r of await store.list(state, 100_000)) records.set(r.intakeId, r);
    const open = [...records.values()].filter((r) => !['submitted', 'rejected', 'failed'].includes(r.state));
    if (open.length === 0) break;
    if (Date.now() > until) throw new Error(`intakes did not end: ${open.map((r) => `${r.intakeId} ${r.state}`).join(', ')}`);
    await delay(500);
  }

  const letters = sandbox.store.allLetters();
  const lettersByTitle = Map.groupBy(letters, (l) => l.title);
  const accepted = deliveries.filter((d) => d.intakeId !== undefined);
  const all = deliveries.flatMap((d) => d.attempts);
  const times250 = all.filter((a) => a.code === 250).map((a) => a.at);
  times250.sort((a, b) => a - b);
  const gapMs = Math.max(0, ...times250.slice(1).map((t, i) => t - (times250[i] ?? t)));
  const failed = [...records.values()].filter((r) => r.state === 'failed');
  for (const f of failed) process.stdout.write(`  failed ${f.intakeId}: ${f.errorCode} ${f.reason}\n`);
  return {
    sent: deliveries.length,
    answered250: accepted.length,
    replies451: all.filter((a) => a.code === 451).length,
    // Answered before the kill, while Redis ran: only a replica acknowledgement can refuse then.
    replies451WhileStopped: all.filter((a) => a.code === 451 && a.at >= stoppedAt && a.at < killedAt).length,
    letters: letters.filter((l) => deliveries.some((d) => d.title === l.title)).length,
    duplicates: [...lettersByTitle.values()].filter((ls) => ls.length > 1).length,
    lost: accepted.filter((d) => !records.has(d.intakeId ?? '') || (lettersByTitle.get(d.title)?.length ?? 0) === 0).length,
    recordsLost: accepted.filter((d) => !records.has(d.intakeId ?? '')).length,
    lettersLost: accepted.filter((d) => (lettersByTitle.get(d.title)?.length ?? 0) === 0).length,
    gapSeconds: Math.round(gapMs / 100) / 10,
  };
}

function printLedger(title: string, ledger: Ledger): void {
  const rows: [string, number][] = [
    ['sent', ledger.sent],
    ['answered 250', ledger.answered250],
    ['answered 451 (all re-sent)', ledger.replies451],
    ['  of them while the replicas were stopped', ledger.replies451WhileStopped],
    ['letters at the Sender API', ledger.letters],
    ['intakes with a second letter', ledger.duplicates],
    ['250s lost (no record, or no letter)', ledger.lost],
    ['  intake record gone after the failover', ledger.recordsLost],
    ['  no letter made', ledger.lettersLost],
    ['longest time without a 250 (s)', ledger.gapSeconds],
  ];
  process.stdout.write(`\n${title}\n${rows.map(([k, v]) => `  ${k.padEnd(44)} ${String(v).padStart(6)}`).join('\n')}\n`);
}

describe('losing the Redis primary mid-load', () => {
  it('with REDIS_REPLICAS_ACK=1: nothing answered 250 is lost, no second letter, 451 while the replicas were stopped, no long gap', async () => {
    const ledger = await runFailover(1);
    printLedger('FAILOVER LEDGER, REDIS_REPLICAS_ACK=1', ledger);
    expect(ledger.lost).toBe(0);
    expect(ledger.recordsLost).toBe(0);
    expect(ledger.lettersLost).toBe(0);
    expect(ledger.duplicates).toBe(0);
    expect(ledger.letters).toBe(ledger.answered250);
    expect(ledger.replies451WhileStopped).toBeGreaterThan(0);
    expect(ledger.gapSeconds).toBeLessThan(10);
  });

  it('with REDIS_REPLICAS_ACK=0: the 250s lost are counted', async () => {
    const ledger = await runFailover(0);
    printLedger('FAILOVER LEDGER, REDIS_REPLICAS_ACK=0', ledger);
    // Counted, not asserted: whether a write of the stopped second reached a letter before the
    // kill is a race. What holds without acknowledgement too: the ledger balances.
    expect(ledger.answered250).toBeGreaterThan(0);
    // Without acknowledgement, replicas that stop refuse nothing: no 451 before the kill.
    expect(ledger.replies451WhileStopped).toBe(0);
    // Each 250 lost is lost as a record, as a letter, or both.
    expect(ledger.lost).toBeGreaterThanOrEqual(Math.max(ledger.recordsLost, ledger.lettersLost));
    expect(ledger.lost).toBeLessThanOrEqual(ledger.recordsLost + ledger.lettersLost);
  });
});
