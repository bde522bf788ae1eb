// Holds, for crash tests: a matching /api/v1 request is held either before it is served
// ('before': nothing happened yet) or after it was served but before its answer leaves
// ('after': the API did the work, the caller never hears of it). A test then kills the caller
// at that exact step, and releases the holds when it is done.

export type HoldPhase = 'before' | 'after';

interface HoldRule {
  readonly method: string;
  readonly path: string;
  readonly phase: HoldPhase;
  /** Hold only the first `count` matching requests (all of them when absent). */
  readonly count?: number | undefined;
}

interface ActiveRule extends HoldRule {
  remaining: number;
}

export class HoldQueue {
  #rules: ActiveRule[] = [];
  #held: (() => void)[] = [];
  #watchers: (() => void)[] = [];

  /** Holds every `method path` request (path prefix) at `phase` (or the first `count`) until release(). */
  add(rule: HoldRule): void {
    this.#rules.push({ ...rule, method: rule.method.toUpperCase(), remaining: rule.count ?? Number.POSITIVE_INFINITY });
  }

  /** A promise that resolves when released, if this request matches a rule at this phase. */
  hold(method: string, path: string, phase: HoldPhase): Promise<void> | undefined {
    const rule = this.#rules.find((r) => r.remaining > 0 && r.phase === phase && r.method === method && path.startsWith(r.path));
    if (rule === undefined) return undefined;
    rule.remaining -= 1;
    const released = new Promise<void>((resolve) => this.#held.push(resolve));
    for (const notify of this.#watchers.splice(0)) notify();
    return released;
  }

  get heldCount(): number {
    return this.#held.length;
  }

  /** Resolves once at least `count` requests are held. */
  async waitForHeld(count = 1): Promise<void> {
    while (this.#held.length < count) await new Promise<void>((resolve) => this.#watchers.push(resolve));
  }

  /** Drops every rule and lets every held request go on. */
  release(): void {
    this.#rules = [];
    for (const resume of this.#held.splice(0)) resume();
  }
}
