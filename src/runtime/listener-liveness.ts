// Whether a listener process is hung, judged by wall time: it is taken as hung once no answer of
// any kind came for HUNG_AFTER_MS since the first ask it left unanswered, and at least
// HUNG_AFTER_MISSES asks timed out meanwhile. A count of overlapping asks alone would kill a busy
// but healthy process on one brief stall (a full GC) when a probe and two scrapes meet.

/** How long a listener process may leave its asks unanswered before it is killed. */
export const HUNG_AFTER_MS = 5000;
/** How many asks must have timed out in that time: one slow ask is not a hang. */
export const HUNG_AFTER_MISSES = 2;

export class Liveness {
  private waitingSince: number | undefined;
  private misses = 0;
  private judged = false;

  /** An ask is sent at `now`. */
  asked(now: number): void {
    this.waitingSince ??= now;
  }

  /** The process answered (any answer, late ones too): it is alive. */
  answered(): void {
    this.waitingSince = undefined;
    this.misses = 0;
  }

  /** An ask timed out at `now`; true (once) when the process is taken as hung. */
  missed(now: number): boolean {
    this.misses++;
    if (this.judged || this.waitingSince === undefined) return false;
    this.judged = this.misses >= HUNG_AFTER_MISSES && now - this.waitingSince >= HUNG_AFTER_MS;
    return this.judged;
  }
}
