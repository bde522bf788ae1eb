// Calls that arrive together share one round trip (a group commit of Redis writes): a lone call
// goes at once, alone; calls that arrive while a round trip is in flight gather for the next,
// which goes when the one in flight is answered, when `max` have gathered, or `maxWaitMs` after
// the first of them came, whichever is first. Each call gets its own answer or its own error.

export interface GroupBounds {
  /** Longest a call waits for the round trip in flight before its own goes beside it. */
  readonly maxWaitMs: number;
  /** Calls in one round trip at most. */
  readonly max: number;
}

/** One answer per input, in order: a value or the error of that input alone. */
export type Answers<O> = readonly ({ readonly ok: true; readonly value: O } | { readonly ok: false; readonly error: unknown })[];

interface Gathered<I, O> {
  readonly inputs: I[];
  readonly waiters: { ok: (value: O) => void; fail: (err: unknown) => void }[];
  timer?: ReturnType<typeof setTimeout>;
}

export function groupedCalls<I, O>(runMany: (inputs: readonly I[]) => Promise<Answers<O>>, bounds: GroupBounds): (input: I) => Promise<O> {
  let inFlight = 0;
  let gathering: Gathered<I, O> | undefined;

  const send = (batch: Gathered<I, O>): void => {
    if (batch.timer !== undefined) clearTimeout(batch.timer);
    if (gathering === batch) gathering = undefined;
    inFlight += 1;
    const settle = (answers: Answers<O> | undefined, err?: unknown): void => {
      inFlight -= 1;
      batch.waiters.forEach((waiter, i) => {
        const answer = answers?.[i];
        if (answer === undefined) waiter.fail(err ?? new Error('no answer for this call in its round trip'));
        else if (answer.ok) waiter.ok(answer.value);
        else waiter.fail(answer.error);
      });
      if (inFlight === 0 && gathering !== undefined) send(gathering);
    };
    runMany(batch.inputs).then(
      (answers) => settle(answers),
      (err: unknown) => settle(undefined, err),
    );
  };

  return (input) =>
    new Promise<O>((ok, fail) => {
      const lone = inFlight === 0 && gathering === undefined;
      let batch = gathering;
      if (batch === undefined) {
        const next: Gathered<I, O> = { inputs: [], waiters: [] };
        if (!lone) {
          next.timer = setTimeout(() => send(next), bounds.maxWaitMs);
          next.timer.unref();
          gathering = next;
        }
        batch = next;
      }
      batch.inputs.push(input);
      batch.waiters.push({ ok, fail });
      if (lone || batch.inputs.length >= bounds.max) send(batch);
    });
}
