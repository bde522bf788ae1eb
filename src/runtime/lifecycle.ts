// Graceful shutdown: the first SIGTERM/SIGINT closes every part in order within a bound and
// exits 0; a second signal exits at once.
import type { Logger } from '../log.js';

export interface Closable {
  readonly name: string;
  close(): Promise<void>;
  /** Told at the signal, before the parts close in order (the listener processes start none again). */
  beginClose?(): void;
}

export function closeOnSignals(parts: readonly Closable[], logger: Logger, boundMs: number): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      logger.warn({ event: 'shutdown.forced', signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
    logger.info({ event: 'shutdown.started', signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ event: 'shutdown.timeout', boundMs }, 'shutdown took too long: exiting');
      process.exit(1);
    }, boundMs);
    timer.unref();
    for (const part of parts) part.beginClose?.();
    void closeInOrder(parts, logger).then(() => {
      logger.info({ event: 'shutdown.done' }, 'stopped');
      process.exit(0);
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** Closes each part in turn; a part that fails to close is logged and does not stop the rest. */
export async function closeInOrder(parts: readonly Closable[], logger: Logger): Promise<void> {
  for (const part of parts) {
    try {
      await part.close();
      logger.info({ event: 'shutdown.closed', part: part.name }, `${part.name} closed`);
    } catch (err) {
      logger.warn({ event: 'shutdown.close_failed', part: part.name, err }, `${part.name} did not close cleanly`);
    }
  }
}
