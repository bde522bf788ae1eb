// The gateway on a Redis Cluster (REDIS_CLUSTER_NODES): the listener and the worker as compiled
// processes against a local three-master cluster, the sandbox Sender API over HTTP, a notice
// relay on loopback. Every key lives under the hash-tagged prefix, so one master carries the
// gateway; moving that slot to another master while mail arrives must lose and double nothing.
import { join } from 'node:path';
import { type Queue, UnrecoverableError, Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeKeys } from '../../src/intake/keys.js';
import { createIntakeQueue, INTAKE_QUEUE, type IntakeJobData } from '../../src/intake/queue.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { NoticeLedger } from '../../src/notices/ledger.js';
import { createNoticeQueue, NOTICE_QUEUE, type NoticeJobData, noticeJobOptions } from '../../src/notices/queue.js';
import { openRedis } from '../../src/redis/connections.js';
import { prefixServer } from '../../src/redis/prefix-shard.js';
import { replicaAck } from '../../src/redis/replica-ack.js';
import { parseHostPorts } from '../../src/redis/topology.js';
import { freePort } from '../../src/runtime/redis.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, intakeIdOf, testEnv } from '../helpers/gateway.js';
import { startTestRelay, type TestRelay } from '../helpers/notice-relay.js';
import { type RoleProcess, runCommand, startRole } from '../helpers/processes.js';
import { dropPrefix, randomPrefix } from '../helpers/redis.js';
import { type RedisCluster, startRedisCluster } from '../helpers/redis-cluster.js';
import { offer } from '../helpers/retrying-mta.js';
import { signedLetter } from '../helpers/signed-letter.js';

const RESHARD_MESSAGES = Number(process.env.CLUSTER_RESHARD_MESSAGES ?? 120);
const SENDERS_AT_ONCE = 4;

let cluster: RedisCluster;
let client: Cluster;
let sandbox: RunningSandbox;
let relay: TestRelay;
let env: Record<string, string>;
let prefix: string;
let store: IntakeStore;
let intakeQueue: Queue<IntakeJobData>;
let smtpPort: number;
let listener: RoleProcess;
const workers: RoleProcess[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  const directory = loadSenderDirectory(join(FIXTURE_DIR, 'senders.json'), {});
  sandbox = await startSandbox({ directory, clock: Date.now, logger: createLogger({ level: 'silent' }), host: '127.0.0.1', port: 0 });
  relay = await startTestRelay();
  smtpPort = await freePort();
  prefix = randomPrefix();
  const { REDIS_URL: _standalone, ...base } = testEnv(prefix, {
    SMTP_PORT: String(smtpPort),
    OPS_HTTP_PORT: '0',
    SENDER_API_URL: sandbox.url,
    NOTICE_SMTP_URL: relay.url,
    REDIS_REPLICAS_ACK: '0',
    WORKER_SWEEP_INTERVAL_MS: '500',
    WORKER_SWEEP_AGE_MS: '200',
  });
  env = { ...base, ...cluster.env };
  const opened = openRedis(
    {
      kind: 'cluster',
      nodes: parseHostPorts(cluster.env.REDIS_CLUSTER_NODES, 6379),
      username: undefined,
      password: undefined,
      tls: undefined,
    },
    { kind: 'worker' },
  );
  if (!(opened instanceof Cluster)) throw new Error('REDIS_CLUSTER_NODES must open a Cluster client');
  client = opened;
  client.on('error', () => {});
  store = new IntakeStore(client, prefix, { rawMs: 600_000, recordMs: 600_000 });
  intakeQueue = createIntakeQueue(client, prefix);
  listener = await startRole('smtp', env);
});

afterAll(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
  await listener?.stop();
  await intakeQueue?.close();
  if (client !== undefined) {
    await dropPrefix(client, prefix).catch(() => undefined);
    client.disconnect();
  }
  await relay?.close();
  await sandbox?.close();
  await cluster?.destroy();
});

async function startWorker(): Promise<RoleProcess> {
  const worker = await startRole('worker', env);
  workers.push(worker);
  return worker;
}

async function deliver(title: string): Promise<string> {
  const reply = await offer(smtpPort, await signedLetter({ title }));
  expect(reply.code).toBe(250);
  return intakeIdOf(reply.text);
}

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stateOf(intakeId: string, states: readonly string[]) {
  const record = await store.get(intakeId);
  return record !== undefined && states.includes(record.state) ? record : undefined;
}

const lettersTitled = (title: string) => sandbox.store.allLetters().filter((l) => l.title === title && l.status !== 'Draft');

describe('the gateway on a Redis Cluster', () => {
  it("sends the replica acknowledgement's WAIT to the master owning the prefix's slot", async () => {
    const owner = await cluster.ownerPort(await cluster.keySlot(prefix));
    const waits = async (): Promise<Map<number, number>> => {
      const counts = new Map<number, number>();
      for (const node of client.nodes('master')) {
        const calls = /cmdstat_wait:calls=(\d+)/.exec(await node.info('commandstats'))?.[1];
        counts.set(node.options.port ?? 0, Number(calls ?? 0));
      }
      return counts;
    };
    const before = await waits();
    const keys = intakeKeys(prefix);
    const slot = await cluster.keySlot(prefix);
    const ack = replicaAck({
      tick: client,
      writer: client,
      tickKey: keys.replicaTick,
      markPrefix: keys.replicaMarks,
      slot,
      wanted: 0,
      clock: Date.now,
    });
    // Acknowledged also says each session's mark, written on the writer, was found by the round.
    for (let i = 0; i < 5; i++) expect(await ack.begin().acknowledge(Date.now() + 1000)).toEqual({ kind: 'acknowledged', replicas: 0 });
    const after = await waits();
    const grown = [...after]
      .filter(([port, calls]) => calls > (before.get(port) ?? 0))
      .map(([port, calls]) => [port, calls - (before.get(port) ?? 0)]);
    expect(grown).toEqual([[owner, 5]]);
  });

  it('accepts, processes, sweeps, sends notices and replays', async () => {
    // Before any worker runs: B's job fails where no processor sees it (the intake sweep must
    // fail B, notice the sender and leave it replayable); A waits in the queue; C carries a
    // notice whose job failed with its entry still `queued` (the notice sweep must end it).
    const b = await deliver('Cluster B');
    const intakeTaker = new Worker<IntakeJobData>(INTAKE_QUEUE, null, { connection: client.duplicate(), prefix, autorun: false });
    const intakeJob = await intakeTaker.getNextJob('test-token');
    expect(intakeJob?.id).toBe(b);
    await intakeJob?.moveToFailed(new UnrecoverableError('the job failed inside Redis'), 'test-token', false);
    await intakeTaker.close();
    const a = await deliver('Cluster A');
    const c = await deliver('Cluster C');
    const noticeQueue = createNoticeQueue(client, prefix);
    await noticeQueue.add('notice', { intakeId: c, kind: 'rejected' }, noticeJobOptions(c, 'rejected', 1));
    expect(await new NoticeLedger(client, prefix).move(c, 'rejected', ['absent'], { state: 'queued', at: Date.now() })).toEqual({
      ok: true,
    });
    const noticeTaker = new Worker<NoticeJobData>(NOTICE_QUEUE, null, { connection: client.duplicate(), prefix, autorun: false });
    const noticeJob = await noticeTaker.getNextJob('test-token');
    expect(noticeJob?.id).toBe(`${c}-rejected`);
    await noticeJob?.moveToFailed(new UnrecoverableError('the processor died on its last attempt'), 'test-token', false);
    await noticeTaker.close();
    await noticeQueue.close();
    await new Promise((r) => setTimeout(r, 300)); // past WORKER_SWEEP_AGE_MS

    await startWorker();
    const recordA = await until(() => stateOf(a, ['submitted', 'rejected', 'failed']), 'A to end');
    expect(recordA.state).toBe('submitted');
    expect(lettersTitled('Cluster A').map((l) => l.id)).toEqual([recordA.letterId]);

    const recordB = await until(() => stateOf(b, ['failed']), 'the intake sweep to fail B');
    expect(recordB.errorCode).toBe('JobAbandoned');
    const failedNotice = await until(async () => {
      const entry = (await store.get(b))?.notices?.failed;
      return entry?.state === 'sent' ? entry : undefined;
    }, "B's failure notice to be sent");
    expect(failedNotice.state).toBe('sent');
    expect(relay.received.some((m) => m.raw.toString('utf8').includes(b))).toBe(true);

    const recordC = await until(async () => {
      const record = await stateOf(c, ['submitted']);
      return record?.notices?.rejected?.state === 'failed' ? record : undefined;
    }, "the notice sweep to end C's notice");
    expect(recordC.notices?.rejected?.reason).toContain('its job failed');
    expect(lettersTitled('Cluster C').map((l) => l.id)).toEqual([recordC.letterId]);

    expect(lettersTitled('Cluster B')).toEqual([]);
    const replayed = await runCommand(['replay-failed'], env);
    expect(replayed.text).toContain(`intake ${b} queued again`);
    expect(replayed.code).toBe(0);
    const again = await until(() => stateOf(b, ['submitted']), 'B to be submitted after its replay');
    expect(lettersTitled('Cluster B').map((l) => l.id)).toEqual([again.letterId]);
  });

  it('keeps every key of the gateway in the prefix hash tag slot', async () => {
    const slot = await cluster.keySlot(prefix);
    const owner = await cluster.ownerPort(slot);
    const server = await prefixServer(client, prefix);
    expect(server.options.port).toBe(owner);
    // Every key of the prefix is on the owner, none on the other masters.
    for (const master of cluster.masters) {
      const node = client.nodes('master').find((n) => n.options.port === master.port);
      const keys = (await node?.keys(`${prefix}*`)) ?? [];
      if (master.port === owner) expect(keys.length).toBeGreaterThan(0);
      else expect(keys).toEqual([]);
    }
  });

  it("has doctor name the prefix slot's master and replicas, and read that master's settings", async () => {
    const slot = await cluster.keySlot(prefix);
    const owner = await cluster.ownerPort(slot);
    // The other masters lose writes on a crash: doctor must judge the one that holds the gateway.
    const others = client.nodes('master').filter((n) => n.options.port !== owner);
    for (const node of others) await node.config('SET', 'appendfsync', 'everysec');
    const { text } = await runCommand(['doctor'], env);
    for (const node of others) await node.config('SET', 'appendfsync', 'always');
    expect(text).toContain(`cluster slot: slot ${slot} of "${prefix}" on master 127.0.0.1:${owner}, no replicas`);
    expect(text).toContain('appendfsync: always');
    const ackWanted = await runCommand(['doctor'], { ...env, REDIS_REPLICAS_ACK: '1' });
    expect(ackWanted.text).toContain('REDIS_REPLICAS_ACK=1 waits for more replicas than this shard has');
  });

  it('moves the prefix slot to another master under load, every 250 ending as exactly one letter', async () => {
    if (workers.length === 0) await startWorker();
    const slot = await cluster.keySlot(prefix);
    const from = await cluster.ownerPort(slot);
    const to = cluster.masters.find((m) => m.port !== from)?.port ?? 0;
    const titles = Array.from({ length: RESHARD_MESSAGES }, (_, n) => `Reshard ${n}`);
    const messages = await Promise.all(titles.map((title) => signedLetter({ title })));
    const ledger = {
      sent: 0,
      accepted: 0,
      answered451: 0,
      otherReplies: [] as string[],
      keysMoved: 0,
      answeredWhileMoving: 0,
      acceptedWhileMoving: 0,
    };
    let migrating = false;
    const accepted = new Map<string, string>(); // title → intake id
    let next = 0;
    let moving: Promise<void> | undefined;
    const sender = async (): Promise<void> => {
      for (let n = next++; n < messages.length; n = next++) {
        const raw = messages[n];
        const title = titles[n];
        if (raw === undefined || title === undefined) continue;
        // The MTA's retry: a 4xx is offered again until a final answer.
        for (;;) {
          ledger.sent++;
          const reply = await offer(smtpPort, raw);
          if (migrating) ledger.answeredWhileMoving++;
          if (reply.code === 250) {
            ledger.accepted++;
            if (migrating) ledger.acceptedWhileMoving++;
            accepted.set(title, intakeIdOf(reply.text));
            break;
          }
          if (reply.code === 451) ledger.answered451++;
          else ledger.otherReplies.push(`${reply.code} ${reply.text}`);
          if (reply.code >= 500) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        if (moving === undefined && accepted.size >= messages.length / 3) {
          migrating = true;
          moving = cluster.moveSlot(slot, to, { batch: 5, pauseMs: 50 }).then((r) => {
            ledger.keysMoved = r.keys;
            migrating = false;
          });
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS_AT_ONCE }, sender));
    await moving;
    expect(await cluster.ownerPort(slot)).toBe(to);

    for (const id of accepted.values()) await until(() => stateOf(id, ['submitted', 'rejected', 'failed']), `intake ${id} to end`, 90_000);
    let letters = 0;
    let duplicates = 0;
    let lost = 0;
    const notSubmitted: string[] = [];
    for (const [title, id] of accepted) {
      const count = lettersTitled(title).length;
      letters += count;
      if (count > 1) duplicates++;
      if (count === 0) lost++;
      const record = await store.get(id);
      if (record?.state !== 'submitted') notSubmitted.push(`${id}: ${record?.state} ${record?.errorCode ?? ''}`);
    }
    const printed = {
      slot,
      movedFrom: from,
      movedTo: to,
      keysMoved: ledger.keysMoved,
      answeredWhileMoving: ledger.answeredWhileMoving,
      acceptedWhileMoving: ledger.acceptedWhileMoving,
      messages: RESHARD_MESSAGES,
      sent: ledger.sent,
      '250': ledger.accepted,
      '451': ledger.answered451,
      other: ledger.otherReplies.length,
      letters,
      duplicates,
      lost,
    };
    console.log(`reshard ledger ${JSON.stringify(printed)}`);
    expect(ledger.answeredWhileMoving).toBeGreaterThan(0); // the slot moved under load, not after it
    expect(ledger.otherReplies).toEqual([]);
    expect(ledger.accepted).toBe(RESHARD_MESSAGES);
    expect(notSubmitted).toEqual([]);
    expect({ letters, duplicates, lost }).toEqual({ letters: RESHARD_MESSAGES, duplicates: 0, lost: 0 });
    expect((await intakeQueue.getJobCounts('failed')).failed).toBe(0); // B's went back to the queue with its replay
  });
});
