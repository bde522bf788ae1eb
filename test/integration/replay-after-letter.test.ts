// A replay of a failed intake whose record already holds its letter id goes on with that letter:
// the sandbox ends with one letter for the message, the one recorded, never a second draft.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { IntakeMarkers } from '../../src/intake/markers.js';
import { replayIntake } from '../../src/intake/replay.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

describe('a replay after the letter id was recorded', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ worker: true });
  });
  afterAll(() => gateway.close());

  const lettersTitled = (title: string) => (gateway.sandbox?.store.allLetters() ?? []).filter((l) => l.title === title);

  it('submits the recorded draft and leaves one letter for the message', async () => {
    // The submit is refused as the operator's problem: the intake fails, its draft made and recorded.
    gateway.sandbox?.store.injectFault({ status: 403, errorCode: 'InsufficientAuthorization', paths: '/api/v1/letters/submit', count: 1 });
    const title = 'Replayed after its draft was recorded';
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await signedLetter({ title }),
      helo: FIXTURE_SESSION.helo,
    });
    const intakeId = intakeIdOf(replies.data?.text ?? '');
    const failed = await gateway.settled(intakeId);
    expect({ state: failed.state, errorCode: failed.errorCode }).toEqual({ state: 'failed', errorCode: 'InsufficientAuthorization' });
    const drafted = lettersTitled(title);
    expect(drafted).toHaveLength(1);
    expect(failed.letterId).toBe(drafted[0]?.id);
    expect(drafted[0]?.status).not.toBe('PendingApproval'); // a draft: the submit never went through

    const markers = new IntakeMarkers(gateway.rawStore);
    expect(await replayIntake({ store: gateway.store, queue: gateway.queue, clock: Date.now, attempts: 3, markers }, intakeId)).toEqual({
      ok: true,
    });
    // The letters first: a second draft would be there before any submit, so this never holds by passing through.
    await vi.waitFor(() => expect(lettersTitled(title).map((l) => [l.id, l.status])).toEqual([[failed.letterId, 'PendingApproval']]), {
      timeout: 15_000,
      interval: 25,
    });
    const replayed = await gateway.settled(intakeId);
    expect({ state: replayed.state, letterId: replayed.letterId }).toEqual({ state: 'submitted', letterId: failed.letterId });
    expect(lettersTitled(title)).toHaveLength(1);
    expect((await markers.letter(intakeId))?.letterId).toBe(failed.letterId);
  });
});
