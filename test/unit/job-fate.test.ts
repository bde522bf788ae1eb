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
