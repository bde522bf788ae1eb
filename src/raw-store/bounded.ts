// Every raw-store operation has a bound, and both ways of failing (an error, no answer) become
// the one error the listener turns into 451 4.3.0 and the worker into a retry.
import { IntakeError } from '../errors.js';

/** Resolves like `work`, or rejects with StorageUnavailable naming `what` (on error or after `ms`). */
export async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new IntakeError('StorageUnavailable', `raw store: ${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } catch (err) {
    throw storeError(err, what);
  } finally {
    clearTimeout(timer);
  }
}

export function storeError(err: unknown, what: string): IntakeError {
  if (err instanceof IntakeError) return err;
  const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new IntakeError('StorageUnavailable', `raw store: ${what}: ${detail}`, { cause: err });
}
