// Every raw-store operation has a bound, and both ways of failing (an error, no answer) become
// the one error the listener turns into 451 4.3.0 and the worker into a retry. A replacing
// write's BlobChanged is an answer, not an outage: it passes as it is.
import { TimeoutError, withTimeout } from '../bounded.js';
import { IntakeError } from '../errors.js';
import { BlobChanged } from './raw-store.js';

/** Resolves like `work`, or rejects with StorageUnavailable naming `what` (on error or after `ms`). */
export async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  try {
    return await withTimeout(work, ms, what);
  } catch (err) {
    throw storeError(err, what);
  }
}

export function storeError(err: unknown, what: string): IntakeError | BlobChanged {
  if (err instanceof IntakeError || err instanceof BlobChanged) return err;
  if (err instanceof TimeoutError) return new IntakeError('StorageUnavailable', `raw store: ${err.message}`, { cause: err });
  const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new IntakeError('StorageUnavailable', `raw store: ${what}: ${detail}`, { cause: err });
}
