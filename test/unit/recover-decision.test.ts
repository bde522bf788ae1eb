import { describe, expect, it } from 'vitest';
import type { EndedMarker, LetterMarker } from '../../src/intake/markers.js';
import { decideRecovery, noticeOnRecovery, type RecoverAction } from '../../src/recover/recover-decision.js';

const letter: LetterMarker = { v: 1, intakeId: 'in1', letterId: 'L-1', draftStatus: 'Draft', at: 1 };
const submitted = { v: 1, intakeId: 'in1', outcome: 'submitted', at: 2, letterId: 'L-1' } as const satisfies EndedMarker;
const rejected = { v: 1, intakeId: 'in1', outcome: 'rejected', at: 2, reasonCode: 'NoPdf' } as const satisfies EndedMarker;
const failed = { v: 1, intakeId: 'in1', outcome: 'failed', at: 2, errorCode: 'InvalidData' } as const satisfies EndedMarker;

describe('what recover does with an intake answered 250', () => {
  const table: [string, Parameters<typeof decideRecovery>[0], RecoverAction][] = [
    [
      'a live record, whatever the markers say',
      { recordPresent: true, ended: undefined, letter: undefined, blobPresent: false },
      { kind: 'keep' },
    ],
    ['a live record beside an ended marker', { recordPresent: true, ended: submitted, letter, blobPresent: true }, { kind: 'keep' }],
    [
      'no record, ended submitted',
      { recordPresent: false, ended: submitted, letter, blobPresent: true },
      { kind: 'restore-ended', ended: submitted },
    ],
    [
      'no record, ended submitted, blob gone with retention',
      { recordPresent: false, ended: submitted, letter, blobPresent: false },
      { kind: 'restore-ended', ended: submitted },
    ],
    [
      'no record, ended rejected',
      { recordPresent: false, ended: rejected, letter: undefined, blobPresent: true },
      { kind: 'restore-ended', ended: rejected },
    ],
    [
      'no record, ended failed',
      { recordPresent: false, ended: failed, letter: undefined, blobPresent: true },
      { kind: 'restore-failed', ended: failed },
    ],
    [
      'no record, ended failed with a letter',
      { recordPresent: false, ended: failed, letter, blobPresent: true },
      { kind: 'restore-failed', ended: failed },
    ],
    [
      'no record, not ended, blob here, no letter',
      { recordPresent: false, ended: undefined, letter: undefined, blobPresent: true },
      { kind: 'queue', letter: undefined },
    ],
    [
      'no record, not ended, blob here, a letter',
      { recordPresent: false, ended: undefined, letter, blobPresent: true },
      { kind: 'queue', letter },
    ],
    [
      'no record, not ended, blob gone',
      { recordPresent: false, ended: undefined, letter: undefined, blobPresent: false },
      { kind: 'fail-missing', letter: undefined },
    ],
    [
      'no record, not ended, blob gone, a letter',
      { recordPresent: false, ended: undefined, letter, blobPresent: false },
      { kind: 'fail-missing', letter },
    ],
  ];
  it.each(table)('%s', (_name, facts, action) => {
    expect(decideRecovery(facts)).toEqual(action);
  });
});

describe("a restored intake's notice", () => {
  const lifetimeMs = 3_600_000;
  const endedAt = 1_700_000_000_000;
  const queuedNotice = { ...submitted, at: endedAt, notice: 'queued' } as const satisfies EndedMarker;

  it('is queued again when the intake ended within the notice lifetime', () => {
    expect(noticeOnRecovery(queuedNotice, endedAt + 3_599_000, lifetimeMs)).toBe('queue');
  });

  it('is decided when the intake ended before the notice lifetime', () => {
    expect(noticeOnRecovery(queuedNotice, endedAt + 3_601_000, lifetimeMs)).toBe('decided');
  });

  it('is decided when the marker says it was sent, however recent', () => {
    expect(noticeOnRecovery({ ...queuedNotice, notice: 'sent' }, endedAt + 1000, lifetimeMs)).toBe('decided');
  });
});
