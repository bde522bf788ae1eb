// Each sender's own Sender API (senderApiUrl): Globex's letters go to another base URL (a front
// before the sandbox) whose backend is down, so its circuit opens; Acme's letters, on
// SENDER_API_URL, flow to PendingApproval meanwhile. Once Globex's API is back, its letters go
// there, one each. Each intake records the base URL it went to. A 429 with Retry-After from
// Globex's API holds Globex's letters alone, for the time it asked, and no call reaches it meanwhile.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { IntakeMarkers } from '../../src/intake/markers.js';
import { type ApiFront, startApiFront } from '../helpers/api-front.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

let gateway: TestGateway;
let front: ApiFront;
let dir: string;

beforeAll(async () => {
  front = await startApiFront();
  front.backendDown = true;
  dir = mkdtempSync(join(tmpdir(), 'sender-api-per-url-'));
  const file = JSON.parse(readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8')) as { senders: Record<string, unknown>[] };
  const senders = file.senders.map((s) => (s.companyNameEn === 'Globex' ? { ...s, senderApiUrl: front.url } : s));
  const sendersFile = join(dir, 'senders.json');
  writeFileSync(sendersFile, JSON.stringify({ senders }));
  gateway = await startTestGateway({
    worker: true,
    env: {
      SENDERS_FILE: sendersFile,
      WORKER_ATTEMPTS: '3',
      API_CIRCUIT_MIN_CALLS: '3',
      API_CIRCUIT_PROBE_INTERVAL_MS: '200',
    },
  });
  front.target = gateway.sandbox?.url ?? '';
});
afterAll(async () => {
  await gateway.close();
  await front.close();
  rmSync(dir, { recursive: true, force: true });
});

async function deliver(title: string, globex: boolean): Promise<string> {
  const raw = await signedLetter({ title, globex });
  const replies = await sendOnce(gateway.port, {
    from: globex ? 'bounce@globex.example' : 'bounce@acme.example',
    to: [PROCESSING_ADDRESS],
    raw,
    helo: FIXTURE_SESSION.helo,
  });
  return intakeIdOf(replies.data?.text ?? '');
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a Sender API per sender', () => {
  it("holds one sender's letters while its API's circuit is open, and lets another sender's letters through to PendingApproval", async () => {
    const sandbox = gateway.sandbox;
    if (sandbox === undefined) throw new Error('the gateway runs no sandbox');
    const globexTitles = ['Globex 1', 'Globex 2', 'Globex 3', 'Globex 4'];
    const globexIds = await Promise.all(globexTitles.map((t) => deliver(t, true)));
    await until('the circuit of the Globex API to open', () =>
      gateway.logs.some((l) => l.event === 'worker.api_circuit_open' && l.api === front.url),
    );

    const acmeTitles = ['Acme 1', 'Acme 2'];
    const acmeIds = await Promise.all(acmeTitles.map((t) => deliver(t, false)));
    const acme = await Promise.all(acmeIds.map((id) => gateway.settled(id, 15_000)));
    expect(acme.map((r) => r.state)).toEqual(['submitted', 'submitted']);
    expect(acme.map((r) => r.apiBaseUrl)).toEqual([sandbox.url, sandbox.url]);
    for (const title of acmeTitles) {
      expect(
        sandbox.store
          .allLetters()
          .filter((l) => l.title === title)
          .map((l) => l.status),
      ).toEqual(['PendingApproval']);
    }

    // Meanwhile Globex's letters are held: none ended, none reached the sandbox, none failed.
    const held = await Promise.all(globexIds.map(async (id) => gateway.store.get(id)));
    expect(held.map((r) => r?.state)).not.toContain('submitted');
    expect(held.map((r) => r?.state)).not.toContain('failed');
    expect(held.map((r) => r?.apiBaseUrl)).toEqual(globexTitles.map(() => front.url));
    // Recorded before the first call: the login that met the outage came after it.
    expect(sandbox.store.allLetters().filter((l) => l.title.startsWith('Globex'))).toEqual([]);
    expect(gateway.logs.filter((l) => l.event === 'worker.api_circuit_open').map((l) => l.api)).toEqual([front.url]);

    front.backendDown = false;
    const globex = await Promise.all(globexIds.map((id) => gateway.settled(id, 20_000)));
    expect(globex.map((r) => r.state)).toEqual(globexTitles.map(() => 'submitted'));
    for (const title of globexTitles) expect(sandbox.store.allLetters().filter((l) => l.title === title)).toHaveLength(1);
    // The letter marker keeps the base URL with the letter id (what recover carries over a Redis loss).
    const markers = new IntakeMarkers(gateway.rawStore);
    const letters = await Promise.all(globexIds.map((id) => markers.letter(id)));
    expect(letters.map((m) => m?.apiBaseUrl)).toEqual(globexTitles.map(() => front.url));
    expect(front.calls.some((c) => c.kind === 'letter' && c.status < 300)).toBe(true);
  });

  it("holds one sender's letters for the Retry-After its API answered with a 429, and lets another sender's letters through meanwhile", async () => {
    const sandbox = gateway.sandbox;
    if (sandbox === undefined) throw new Error('the gateway runs no sandbox');
    const RETRY_AFTER_MS = 20_000;
    front.backendDown = false;
    front.retryAfterSeconds = RETRY_AFTER_MS / 1000;
    const callsBefore = front.calls.length;
    // One Globex letter meets the 429; then the front would let calls through again, so only the
    // worker's hold of that API keeps the next Globex letters from it.
    const firstId = await deliver('Globex paused 1', true);
    await until('the Globex API to answer 429', () => front.calls.slice(callsBefore).some((c) => c.status === 429));
    const pausedAt = front.calls.slice(callsBefore).find((c) => c.status === 429)?.at ?? 0;
    front.retryAfterSeconds = undefined;
    const laterIds = await Promise.all(['Globex paused 2', 'Globex paused 3'].map((t) => deliver(t, true)));

    const acmeIds = await Promise.all(['Acme during the pause 1', 'Acme during the pause 2'].map((t) => deliver(t, false)));
    const acme = await Promise.all(acmeIds.map((id) => gateway.settled(id, 15_000)));
    expect(acme.map((r) => r.state)).toEqual(['submitted', 'submitted']);
    // Acme's letters ended inside the pause Globex's API asked for (by their records' own times).
    for (const record of acme) expect(record.timeline.submitted ?? Number.POSITIVE_INFINITY).toBeLessThan(pausedAt + RETRY_AFTER_MS);

    const globex = await Promise.all([firstId, ...laterIds].map((id) => gateway.settled(id, 40_000)));
    expect(globex.map((r) => r.state)).toEqual(['submitted', 'submitted', 'submitted']);
    for (const title of ['Globex paused 1', 'Globex paused 2', 'Globex paused 3']) {
      expect(sandbox.store.allLetters().filter((l) => l.title === title)).toHaveLength(1);
    }
    // No letter call reached Globex's API after the 429 and before the time it named (a second
    // early), and no attempt was spent.
    const early = front.calls
      .slice(callsBefore)
      .filter((c) => c.kind === 'letter' && c.at > pausedAt && c.at < pausedAt + RETRY_AFTER_MS - 1000);
    expect(early).toEqual([]);
    expect(globex.map((r) => r.attempts)).toEqual([1, 1, 1]);
  }, 90_000);
});
