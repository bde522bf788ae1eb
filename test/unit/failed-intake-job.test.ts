// A job that finds its intake already failed stops, and writes the intake's `ended/` failed when
// whoever failed it could not: a Redis loss must not bring the failed intake back queued.
import { type Job, UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { EndedMarker } from '../../src/intake/markers.js';
import { silentObserver } from '../../src/intake/observer.js';
import type { IntakeJobData } from '../../src/intake/queue.js';
import { createLogger } from '../../src/log.js';
import { createProcessor } from '../../src/worker/processor.js';
import type { ProcessorDeps } from '../../src/worker/run.js';

const failedRecord = { intakeId: 'i-1', state: 'failed', errorCode: 'JobLost', reason: 'lost', timeline: {} };

function processorForFailedIntake(held: EndedMarker | undefined) {
  const written: EndedMarker[] = [];
  const deps = {
    store: {
      claim: async () => ({ ok: false, state: 'failed' }),
      get: async () => failedRecord,
    },
    markers: {
      ended: async () => held,
      putEnded: async (marker: EndedMarker) => void written.push(marker),
    },
    clock: () => 1_750_000_000_000,
    logger: createLogger({ level: 'silent' }),
    observer: silentObserver,
  };
  // The fake carries only what a refused claim reaches; the cast says so once, here.
  return { process: createProcessor(deps as unknown as ProcessorDeps), written };
}

const job = { id: 'i-1', data: { intakeId: 'i-1' }, attemptsMade: 0, attemptsStarted: 1, stalledCounter: 0, opts: { attempts: 5 } };

/** The job stops for good: BullMQ's UnrecoverableError, naming the failed intake, and no retry. */
async function run(process: ReturnType<typeof createProcessor>): Promise<void> {
  const stopped = process(job as unknown as Job<IntakeJobData>, 'token-1');
  await expect(stopped).rejects.toBeInstanceOf(UnrecoverableError);
  await expect(stopped).rejects.toThrow('intake i-1 is failed: only a replay queues it again');
}

describe('a job for a failed intake', () => {
  it('writes ended/ failed when the intake has none', async () => {
    const { process, written } = processorForFailedIntake(undefined);
    await run(process);
    expect(written).toEqual([expect.objectContaining({ intakeId: 'i-1', outcome: 'failed', errorCode: 'JobLost', at: 1_750_000_000_000 })]);
  });

  it('leaves an ended/ that exists as it is', async () => {
    const { process, written } = processorForFailedIntake({ v: 1, intakeId: 'i-1', outcome: 'failed', at: 5 });
    await run(process);
    expect(written).toEqual([]);
  });
});
