// A directory's fsync shared by the commits that ask for it at about the same moment (a group
// commit). On Linux a directory fsync makes durable every rename into that directory done before
// it began, so one fsync can stand for many commits, but only for those whose rename had finished
// when it began: a caller never joins an fsync already running, it waits for the next.
//
// A lone caller's fsync starts at once (it waits no longer than without grouping). Callers that
// arrive while one runs gather for the next, which starts when the running one ends, when
// `max` have gathered, or `maxWaitMs` after the first of them came, whichever is first.
// A failed fsync fails every caller of its batch, and of every batch after it: after a failed
// fsync Linux may have dropped the dirty pages and cleared the error, so a later fsync that
// succeeds proves nothing (`onFailure` marks the store broken).

export interface GroupCommitSettings {
  /** Longest a caller waits for the running fsync to end before its own starts beside it. */
  readonly maxWaitMs: number;
  /** Callers served by one fsync at most. */
  readonly max: number;
  /** Told once, when a failed fsync breaks the store (a listener process then exits to be started again). */
  readonly onBroken?: ((err: Error) => void) | undefined;
}

export interface GroupSync {
  /** Resolves once an fsync of the directory that began after this call has succeeded. */
  sync(): Promise<void>;
}

interface Batch {
  readonly settle: (err?: unknown) => void;
  readonly done: Promise<void>;
  size: number;
  timer?: ReturnType<typeof setTimeout>;
}

export function groupSync(
  syncOnce: () => Promise<void>,
  settings: GroupCommitSettings,
  /** The first failed fsync; afterwards every caller fails with what it returns. */
  onFailure: (err: unknown) => unknown,
): GroupSync {
  let running = 0;
  let gathering: Batch | undefined;
  let failed: unknown;
  let hasFailed = false;

  const start = (batch: Batch): void => {
    if (batch.timer !== undefined) clearTimeout(batch.timer);
    if (gathering === batch) gathering = undefined;
    if (hasFailed) {
      batch.settle(failed); // the directory is not fsynced again
      return;
    }
    running += 1;
    syncOnce().then(
      () => {
        running -= 1;
        batch.settle(hasFailed ? failed : undefined);
        if (running === 0 && gathering !== undefined) start(gathering);
      },
      (err: unknown) => {
        running -= 1;
        if (!hasFailed) {
          hasFailed = true;
          failed = onFailure(err);
        }
        batch.settle(failed);
        if (gathering !== undefined) start(gathering); // it fails at once: nothing is trusted any more
      },
    );
  };

  const newBatch = (): Batch => {
    let settle: Batch['settle'] = () => {};
    const done = new Promise<void>((ok, fail) => {
      settle = (err) => (err === undefined ? ok() : fail(err));
    });
    return { settle, done, size: 0 };
  };

  return {
    sync() {
      if (hasFailed) return Promise.reject(failed);
      if (running === 0 && gathering === undefined) {
        const lone = newBatch();
        lone.size = 1;
        start(lone);
        return lone.done;
      }
      let batch = gathering;
      if (batch === undefined) {
        const next = newBatch();
        next.timer = setTimeout(() => start(next), settings.maxWaitMs);
        next.timer.unref();
        gathering = next;
        batch = next;
      }
      batch.size += 1;
      const { done } = batch;
      if (batch.size >= settings.max) start(batch);
      return done;
    },
  };
}
