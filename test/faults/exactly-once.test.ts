// The whole path over real processes and protocols: `letter-intake smtp` and `letter-intake
// worker` as compiled processes, real Redis, the sandbox Sender API over HTTP. A worker killed
// at each step, a worker stalled past its lock while another takes its job, an API that fails for
// a while, credentials an operator must fix: every accepted message ends as exactly one
// PendingApproval letter. The suite runs against each of the sandbox's contract modes; where the
// API offers no draft listing the client can search (strict, foreign, foreign-list), a stray
// draft is allowed but must be recorded.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { freePort } from '../../src/runtime/redis.js';
import { CONTRACT_MODES, type ContractMode } from '../../src/sandbox/contract-mode.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, testEnv } from '../helpers/gateway.js';
import { type RoleProcess, runCommand, startRole } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const redis = connectTestRedis();
const sandboxes = new Map<ContractMode, RunningSandbox>();
let env: Record<string, string>;
let store: IntakeStore;
let smtpPort: number;
let listener: RoleProcess;
const workers: RoleProcess[] = [];

beforeAll(async () => {
  const directory = loadSenderDirectory(join(FIXTURE_DIR, 'senders.json'), {});
  for (const contractMode of CONTRACT_MODES) {
    sandboxes.set(
      contractMode,
      await startSandbox({
        directory,
        clock: Date.now,
        logger: createLogger({ level: 'silent' }),
        host: '127.0.0.1',
        port: 0,
        contractMode,
      }),
    );
  }
  smtpPort = await freePort();
  const prefix = randomPrefix();
  env = testEnv(prefix, {
    SMTP_PORT: String(smtpPort),
    OPS_HTTP_PORT: '0',
    WORKER_LOCK_MS: '2000',
    WORKER_BACKOFF_BASE_MS: '100',
    WORKER_BACKOFF_CAP_MS: '1000',
  });
  store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
  listener = await startRole('smtp', env);
});

afterEach(async () => {
  for (const sandbox of sandboxes.values()) {
    sandbox.store.holds.release();
    sandbox.store.clearFaults();
  }
  await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
});

afterAll(async () => {
  await listener.stop();
  for (const sandbox of sandboxes.values()) await sandbox.close();
  await dropPrefix(redis, env.REDIS_PREFIX ?? '');
  redis.disconnect();
});

function sandboxOf(contractMode: ContractMode): RunningSandbox {
  const sandbox = sandboxes.get(contractMode);
  if (sandbox === undefined) throw new Error('sandbox not started');
  return sandbox;
}

async function startWorker(contractMode: ContractMode, extra: Record<string, string> = {}): Promise<RoleProcess> {
  const worker = await startRole('worker', { ...env, SENDER_API_URL: sandboxOf(contractMode).url, ...extra });
  workers.push(worker);
  return worker;
}

async function deliver(raw: Buffer): Promise<string> {
  const replies = await sendOnce(smtpPort, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  return intakeIdOf(replies.data?.text ?? '');
}

async function settled(intakeId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await store.get(intakeId);
    if (record !== undefined && ['submitted', 'rejected', 'failed'].includes(record.state)) return record;
    if (Date.now() > deadline) throw new Error(`intake ${intakeId} is ${record?.state ?? 'missing'}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const MODES = CONTRACT_MODES.map((mode) => [`the sandbox in ${mode} mode`, mode] as const);

describe.each(MODES)('against %s', (_mode, mode) => {
  const strict = mode !== 'ours'; // no listing the client can search
  const sandbox = {
    get store() {
      return sandboxOf(mode).store;
    },
  };
  const lettersTitled = (title: string) => sandbox.store.allLetters().filter((l) => l.title === title);

  describe('the whole path over real processes', () => {
    it('turns a signed e-mail into one PendingApproval letter', async () => {
      await startWorker(mode);
      const title = `Whole path against ${_mode}`;
      const id = await deliver(await signedLetter({ title }));
      const record = await settled(id);
      expect(record.state).toBe('submitted');
      expect(lettersTitled(title).map((l) => [l.id, l.status])).toEqual([[record.letterId, 'PendingApproval']]);
      expect(record.strayDrafts).toBeUndefined();
    });
  });

  describe('exactly once when the worker is killed', () => {
    // The last column: drafts left in strict mode, where no listing lets the restarted worker find
    // the draft the killed one made (the killed one's request may or may not have been served).
    const steps = [
      ['after parse, before the draft is saved', 'PUT', '/api/v1/letters/draft', 'before', 'at most one'],
      ['after the draft is saved, before its id is recorded', 'PUT', '/api/v1/letters/draft', 'after', 'one'],
      ['after the draft id is recorded, before submit', 'POST', '/api/v1/letters/submit', 'before', 'none'],
      ['after submit, before the record is updated', 'POST', '/api/v1/letters/submit', 'after', 'none'],
    ] as const;

    it.each(steps)('%s: the restarted worker ends with exactly one letter', async (step, method, path, phase, strictDrafts) => {
      const title = `Killed ${step}`;
      sandbox.store.holds.add({ method, path, phase });
      const first = await startWorker(mode);
      const id = await deliver(await signedLetter({ title }));
      await sandbox.store.holds.waitForHeld();
      await first.stop('SIGKILL');
      sandbox.store.holds.release();

      await startWorker(mode);
      const record = await settled(id);
      expect(record.state).toBe('submitted');
      const letters = lettersTitled(title).filter((l) => l.status !== 'Draft');
      expect(letters.map((l) => [l.id, l.status])).toEqual([[record.letterId, 'PendingApproval']]);
      const drafts = lettersTitled(title).filter((l) => l.status === 'Draft');
      const strays = record.strayDrafts ?? [];
      if (!strict || strictDrafts === 'none') {
        expect({ drafts: drafts.length, strays }).toEqual({ drafts: 0, strays: [] }); // no stray draft either
      } else {
        // The earlier draft could not be looked for: the record says one may be left.
        expect(strays.map((s) => [s.letterId, s.requestedAt === undefined ? 'no marker' : 'marker'])).toEqual([[undefined, 'marker']]);
        if (strictDrafts === 'one') expect(drafts).toHaveLength(1);
        else expect(drafts.length).toBeLessThanOrEqual(1);
      }
    });
  });

  describe('exactly once when a worker stalls past its lock', () => {
    it('a worker stopped while its draft request is in flight loses the job to another and never submits a second letter, recording its own draft as stray', async () => {
      const title = `Stalled past the lock against ${_mode}`;
      // Only the first draft request waits: the second worker's goes through.
      sandbox.store.holds.add({ method: 'PUT', path: '/api/v1/letters/draft', phase: 'before', count: 1 });
      const first = await startWorker(mode);
      const id = await deliver(await signedLetter({ title }));
      await sandbox.store.holds.waitForHeld();
      first.child.kill('SIGSTOP'); // a stall longer than WORKER_LOCK_MS: its lock lapses

      await startWorker(mode); // its stalled-job check takes the job over
      const record = await settled(id);
      expect(record.state).toBe('submitted');

      first.child.kill('SIGCONT');
      sandbox.store.holds.release(); // the stalled worker's draft request is served only now
      const deadline = Date.now() + 20_000;
      const lost = () => first.logs.some((l) => l.event === 'intake.ownership_lost');
      while (!lost() && lettersTitled(title).filter((l) => l.status !== 'Draft').length < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const submittedLetters = lettersTitled(title).filter((l) => l.status !== 'Draft');
      expect(submittedLetters.map((l) => [l.id, l.status])).toEqual([[record.letterId, 'PendingApproval']]);
      expect(lost()).toBe(true);
      const drafts = lettersTitled(title).filter((l) => l.status === 'Draft');
      expect(drafts).toHaveLength(1);
      const after = await store.get(id);
      expect(after?.state).toBe('submitted');
      expect(after?.letterId).toBe(record.letterId);
      expect(after?.strayDrafts?.map((s) => s.letterId)).toContain(drafts[0]?.id);
    });
  });

  describe('an API that fails for a while', () => {
    it.each([
      ['503 ServiceUnavailable', { status: 503, count: 3 }],
      ['429 with Retry-After', { status: 429, count: 2, retryAfterSeconds: 1 }],
      ['500 UnexpectedError', { status: 500, count: 3 }],
    ] as const)('%s: the letter arrives after recovery, once', async (what, fault) => {
      const title = `Outage ${what}`;
      sandbox.store.injectFault({ ...fault, paths: '/api/v1/letters' });
      await startWorker(mode);
      const record = await settled(await deliver(await signedLetter({ title })));
      expect(record, JSON.stringify(record)).toMatchObject({ state: 'submitted' });
      // Every fault served; a 429 spends no attempt, every other fault spends one.
      expect({ attempts: record.attempts, faultsLeft: sandbox.store.faults.pendingCount() }).toEqual({
        attempts: fault.status === 429 ? 1 : fault.count + 1,
        faultsLeft: 0,
      });
      expect(lettersTitled(title).map((l) => l.status)).toEqual(['PendingApproval']);
    });
  });

  describe('credentials an operator must fix', () => {
    it('fails with InvalidCredentials, and replay succeeds once the secret is fixed', async () => {
      const wrong = JSON.parse(readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8')) as { senders: { apiClientSecret: string }[] };
      for (const s of wrong.senders) s.apiClientSecret = 'wrong-secret';
      const wrongFile = join(tmpdir(), `senders-wrong-${process.pid}.json`);
      writeFileSync(wrongFile, JSON.stringify(wrong));
      const broken = await startWorker(mode, { SENDERS_FILE: wrongFile });
      const title = 'Credentials fixed later';
      const id = await deliver(await signedLetter({ title }));
      const failed = await settled(id);
      expect(failed).toMatchObject({ state: 'failed', errorCode: 'InvalidCredentials' });
      expect(failed.traceId).toMatch(/\S+/);
      expect(await redis.zscore(store.blobKeys.due, failed.rawKey ?? 'no raw key')).toBeNull(); // a failed intake keeps its message for replay
      expect(lettersTitled(title)).toHaveLength(0);
      await broken.stop('SIGKILL');

      await startWorker(mode);
      const replay = await runCommand(['replay', id], env);
      expect(replay.code).toBe(0);
      const submitted = await settled(id);
      expect(submitted.state).toBe('submitted');
      expect(submitted.errorCode).toBeUndefined(); // the earlier failure no longer describes it
      expect(lettersTitled(title).map((l) => l.status)).toEqual(['PendingApproval']);

      const again = await runCommand(['replay', id], env);
      expect(again.code).toBe(1);
      expect(again.text).toContain('only failed intakes can be replayed');
    });
  });
});
