// What a job's state says about an intake still queued or processing: the sweep fails the
// intake only when the job will never end it.
import { describe, expect, it } from 'vitest';
import { jobFate } from '../../src/worker/job-fate.js';

describe('the fate of an unfinished intake by its job state', () => {
  it.each([
    ['failed', { kind: 'dead', errorCode: 'JobAbandoned' }],
    ['completed', { kind: 'dead', errorCode: 'JobLost' }],
    ['unknown', { kind: 'dead', errorCode: 'JobLost' }],
    ['active', { kind: 'live' }],
    ['waiting', { kind: 'live' }],
    ['delayed', { kind: 'live' }],
    ['prioritized', { kind: 'live' }],
    ['waiting-children', { kind: 'live' }],
  ] as const)('a job %s means %o', (state, fate) => {
    expect(jobFate(state)).toEqual(fate);
  });
});

describe('a job gone', () => {
  const record = { draftRequestedAt: undefined, letterId: undefined };
  it.each([
    ['queued, untouched by any attempt', { ...record, state: 'queued' }, { kind: 'requeue' }],
    [
      'queued, with a draft marker',
      { ...record, state: 'queued', draftRequestedAt: 1_750_000_000_000 },
      { kind: 'dead', errorCode: 'JobLost' },
    ],
    ['queued, with a letter id', { ...record, state: 'queued', letterId: 'L-1' }, { kind: 'dead', errorCode: 'JobLost' }],
    ['processing, untouched', { ...record, state: 'processing' }, { kind: 'dead', errorCode: 'JobLost' }],
  ] as const)('for an intake %s means %o', (_what, swept, fate) => {
    expect(jobFate('unknown', swept)).toEqual(fate);
  });

  it('finished without recording is lost whatever the record says', () => {
    expect(jobFate('completed', { ...record, state: 'queued' })).toEqual({ kind: 'dead', errorCode: 'JobLost' });
  });
});
