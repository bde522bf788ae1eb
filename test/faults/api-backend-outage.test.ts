// A Sender API whose backend is down while its authentication layer is up: the login and every
// call with a session answer 503, a call without a session answers 401 as it always does
// (test/helpers/api-front.ts plays it in front of the sandbox). The circuit must judge the API
// by the calls it protects: once open it stays open however the session-less layer answers,
// lets one real trial per interval reach the API, spends no attempt, and closes on the first
// trial that succeeds once the backend is back. The intervals are short (a trial every 200 ms,
// the hold alert every 8 s) so that a 30 s outage stands for about 12 minutes of a production
// worker's 5 s trials; the attempt budget is the default 12 with a short backoff, so a worker
// that spent attempts while the circuit was open would fail intakes within the outage.
// Prints the outage's numbers: real calls per interval while open, attempts spent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { type ApiFront, startApiFront } from '../helpers/api-front.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const INTERVAL_MS = 200;
const OUTAGE_MS = 30_000;
const MAX_HOLD_MS = 8000;
const INTAKES = 6;
const MIN_CALLS = 3;

let front: ApiFront;
let gateway: TestGateway;
beforeAll(async () => {
  front = await startApiFront();
  gateway = await startTestGateway({
    worker: true,
    senderApiUrl: (sandboxUrl) => {
      front.target = sandboxUrl;
      return front.url;
    },
    env: {
      WORKER_ATTEMPTS: '12',
      WORKER_BACKOFF_BASE_MS: '50',
      WORKER_BACKOFF_CAP_MS: '500',
      API_CIRCUIT_MIN_CALLS: String(MIN_CALLS),
      API_CIRCUIT_PROBE_INTERVAL_MS: String(INTERVAL_MS),
      API_CIRCUIT_MAX_HOLD_MS: String(MAX_HOLD_MS),
    },
  });
});
afterAll(async () => {
  await gateway.close();
  await front.close();
});

async function deliver(title: string): Promise<string> {
  const raw = await signedLetter({ title });
  const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  return intakeIdOf(replies.data?.text ?? '');
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const attemptOf = (line: Record<string, unknown>): number => (typeof line.attempt === 'number' ? line.attempt : 0);

describe('a backend outage behind an authentication layer that still answers 401', () => {
  it("holds the API's letters with one real trial per interval, spends no attempt, fails no intake, and closes once a trial succeeds", async () => {
    const sandbox = gateway.sandbox;
    if (sandbox === undefined) throw new Error('the gateway runs no sandbox');
    front.backendDown = true;
    const titles = Array.from({ length: INTAKES }, (_, i) => `Backend outage letter ${i + 1}`);
    const ids = await Promise.all(titles.map((title) => deliver(title)));

    await until('the circuit opening', () => gateway.logs.some((l) => l.event === 'worker.api_circuit_open'), 20_000);
    const openedAt = Date.now();
    const openLine = gateway.logs.findIndex((l) => l.event === 'worker.api_circuit_open');
    const failedDuring: string[] = [];
    while (Date.now() - openedAt < OUTAGE_MS) {
      await new Promise((r) => setTimeout(r, 1000));
      for (const id of ids) if ((await gateway.store.get(id))?.state === 'failed' && !failedDuring.includes(id)) failedDuring.push(id);
    }
    const endedAt = Date.now();
    front.backendDown = false;

    const records = await Promise.all(ids.map((id) => gateway.settled(id, 60_000)));
    const whileOpen = front.calls.filter((c) => c.at >= openedAt && c.at < endedAt);
    const intervals = (endedAt - openedAt) / INTERVAL_MS;
    const real = whileOpen.filter((c) => c.kind !== 'sessionless');
    // A run that spends attempt a is the last to log with attempt a (the next run logs a + 1):
    // the attempt was spent before the circuit opened when that last line comes before its opening.
    const spent = ids.map((id, i) => {
      const lines = gateway.logs.map((l, at) => ({ at, attempt: attemptOf(l), id: l.intakeId })).filter((l) => l.id === id);
      const last = Math.max(records[i]?.attempts ?? 0, ...lines.map((l) => l.attempt));
      let before = 0;
      let after = 0;
      for (let attempt = 1; attempt < last; attempt += 1) {
        const lastLine = Math.max(-1, ...lines.filter((l) => l.attempt === attempt).map((l) => l.at));
        if (lastLine < openLine) before += 1;
        else after += 1;
      }
      return { before, after };
    });
    // While any intake still waited (a worker that fails them all stops calling): the rate and the largest burst.
    const failedAt = records.map((r) => (r.state === 'failed' ? (r.timeline.failed ?? endedAt) : endedAt));
    const liveUntil = Math.min(endedAt, Math.max(...failedAt));
    const realWhileLive = real.filter((c) => c.at < liveUntil);
    const bins = new Map<number, number>();
    for (const c of realWhileLive)
      bins.set(Math.floor((c.at - openedAt) / INTERVAL_MS), (bins.get(Math.floor((c.at - openedAt) / INTERVAL_MS)) ?? 0) + 1);
    const stillOpen = gateway.logs.filter((l) => l.event === 'worker.api_circuit_still_open');
    const numbers = {
      outageMs: endedAt - openedAt,
      intervals: Math.round(intervals),
      realCallsWhileOpen: real.length,
      realCallsPerInterval: Number((real.length / intervals).toFixed(2)),
      sessionlessCallsWhileOpen: whileOpen.length - real.length,
      intakesWaitedMs: liveUntil - openedAt,
      realCallsPerIntervalWhileIntakesWaited: Number((realWhileLive.length / Math.max(1, (liveUntil - openedAt) / INTERVAL_MS)).toFixed(2)),
      mostRealCallsInOneInterval: Math.max(0, ...bins.values()),
      circuitOpenings: gateway.logs.filter((l) => l.event === 'worker.api_circuit_open').length,
      circuitClosings: gateway.logs.filter((l) => l.event === 'worker.api_circuit_closed').length,
      attemptsSpentBeforeOpen: spent.reduce((sum, s) => sum + s.before, 0),
      attemptsSpentAfterOpen: spent.reduce((sum, s) => sum + s.after, 0),
      failedDuringOutage: failedDuring.length,
      endStates: records.map((r) => r.state),
      stillOpenAlerts: stillOpen.length,
    };
    console.log(`api backend outage: ${JSON.stringify(numbers)}`);

    expect(failedDuring).toEqual([]);
    expect(records.map((r) => r.state)).toEqual(titles.map(() => 'submitted'));
    for (const title of titles) expect(sandbox.store.allLetters().filter((l) => l.title === title)).toHaveLength(1);
    expect(gateway.logs.filter((l) => l.event === 'notice.queued' && l.kind === 'failed')).toEqual([]);
    expect(numbers.attemptsSpentAfterOpen).toBe(0);
    // Before it opened, each failed call spent the attempts of the jobs that shared it (one login for all).
    expect(numbers.attemptsSpentBeforeOpen).toBeLessThanOrEqual(MIN_CALLS * INTAKES);
    // One trial per interval, and a little room for the interval's edges; never a burst of jobs.
    expect(real.length).toBeLessThanOrEqual(Math.ceil(intervals) + 2);
    expect(real.length).toBeGreaterThanOrEqual(Math.floor(intervals / 2));
    expect(numbers.mostRealCallsInOneInterval).toBeLessThanOrEqual(2);
    // The circuit opened once and closed once: no session-less answer closed it on the way.
    expect(numbers.circuitOpenings).toBe(1);
    expect(numbers.circuitClosings).toBe(1);
    // Held past API_CIRCUIT_MAX_HOLD_MS, it says so again, with how long and what the last trial got.
    expect(stillOpen.length).toBeGreaterThanOrEqual(Math.floor(OUTAGE_MS / MAX_HOLD_MS) - 1);
    expect(stillOpen[0]).toMatchObject({ level: 50, errorCode: 'ApiOutage', lastTrialStatus: 503 });
    expect(stillOpen[0]?.openMs).toBeGreaterThanOrEqual(MAX_HOLD_MS);
  });
});
