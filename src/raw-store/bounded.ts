// Every raw-store operation has a bound, and both ways of failing (an error, no answer) become
// the one error the listener turns into 451 4.3.0 and the worker into a retry.
import { TimeoutError, withTimeout } from '../bounded.js';
import { IntakeError } from '../errors.js';

/** Resolves like `work`, or rejects with StorageUnavailable naming `what` (on error or after `ms`). */
export async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  try {
    return await withTimeout(work, ms, what);
  } catch (err) {
    throw storeError(err, what);
  }
}

export function storeError(err: unknown, what: string): IntakeError {
  if (err instanceof IntakeError) return err;
  if (err instanceof TimeoutError) return new IntakeError('StorageUnavailable', `raw store: ${err.message}`, { cause: err });
  const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new IntakeError('StorageUnavailable', `raw store: ${what}: ${detail}`, { cause: err });
}
