// A sweep run at once and then every interval until stopped: a round still going when the next is
// due is not doubled, and a round's error is handed to `onError` (the next round runs anyway).

export interface Periodic {
  /** Stops the timer and waits for the round in progress. */
  stop(): Promise<void>;
}

export function startPeriodic(round: () => Promise<unknown>, intervalMs: number, onError: (err: unknown) => void): Periodic {
  let running: Promise<void> | undefined;
  const tick = (): void => {
    if (running !== undefined) return; // the previous round is still going
    running = round()
      .then(() => undefined, onError)
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
