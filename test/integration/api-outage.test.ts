// A Sender API outage longer than the retry budget: the sandbox answers 503 to every call for
// far longer than WORKER_ATTEMPTS with its backoff lasts, then recovers. The worker's circuit
// opens, sends each job to the delayed set until its trial; no attempt is spent and no notice queued while it is
// open; once the API answers, every intake ends as one letter and no sender hears of a failure.
// The budget here is small (3 attempts, backoff 50–500 ms, about a second in all) so that an
// outage of a few seconds outlasts it; the circuit's probe runs every 200 ms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const OUTAGE_MS = 4000;
const INTAKES = 4;

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({
    worker: true,
    env: {
      WORKER_ATTEMPTS: '3',
      WORKER_BACKOFF_BASE_MS: '50',
      WORKER_BACKOFF_CAP_MS: '500',
      API_CIRCUIT_MIN_CALLS: '3',
      API_CIRCUIT_PROBE_INTERVAL_MS: '200',
    },
  });
});
afterAll(async () => {
  await gateway.close();
});

async function deliver(title: string): Promise<string> {
  const raw = await signedLetter({ title });
  const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  return intakeIdOf(replies.data?.text ?? '');
}

describe('a Sender API outage longer than the retry budget', () => {
  it("holds the API's letters instead of failing them: every intake ends as one letter, and no failure notice is queued", async () => {
    const sandbox = gateway.sandbox;
    if (sandbox === undefined) throw new Error('the gateway runs no sandbox');
    sandbox.store.injectFault({ status: 503, errorCode: 'ServiceUnavailable', count: 10_000 });
    const titles = Array.from({ length: INTAKES }, (_, i) => `Outage letter ${i + 1}`);
    const ids = await Promise.all(titles.map((title) => deliver(title)));

    await new Promise((r) => setTimeout(r, OUTAGE_MS)); // the outage goes on, well past the retry budget
    const during = await Promise.all(ids.map(async (id) => (await gateway.store.get(id))?.state));
    expect(during.filter((state) => state === 'failed')).toEqual([]);
    sandbox.store.clearFaults();

    const records = await Promise.all(ids.map((id) => gateway.settled(id, 30_000)));
    expect(records.map((r) => r.state)).toEqual(titles.map(() => 'submitted'));
    for (const title of titles) expect(sandbox.store.allLetters().filter((l) => l.title === title)).toHaveLength(1);
    expect(records.map((r) => r.notices?.failed)).toEqual(titles.map(() => undefined));
    expect(gateway.logs.filter((l) => l.event === 'notice.queued' && l.kind === 'failed')).toEqual([]);
    const open = gateway.logs.find((l) => l.event === 'worker.api_circuit_open');
    expect(open).toMatchObject({ level: 50, errorCode: 'ApiOutage' });
    expect(gateway.logs.some((l) => l.event === 'worker.api_circuit_closed')).toBe(true);
  });
});
