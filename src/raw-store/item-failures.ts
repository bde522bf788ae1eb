// One item of a run over many (recover's intakes, housekeeping's blobs and markers) that failed:
// counted, logged with its key, alerted once per key for the life of the process, and the run
// goes on. One bad item (a marker a newer version wrote, a Redis error on one write) must not
// stop the others, nor every later run.
import type { Logger } from '../log.js';

/** Keys remembered as alerted; past this many the memory starts afresh (an alert again, never a leak). */
const MAX_REMEMBERED = 10_000;

export class ItemFailures {
  #count = 0;
  readonly #alerted = new Set<string>();

  constructor(
    private readonly logger: Logger,
    /** The log line's event, e.g. `recover.intake_failed`. */
    private readonly event: string,
    /** The operator alert raised once per key. */
    private readonly alertCode: string,
    private readonly alert: ((code: string) => void) | undefined,
  ) {}

  /** Failures recorded so far. */
  get count(): number {
    return this.#count;
  }

  record(key: string, err: unknown, fields: Readonly<Record<string, unknown>> = {}): void {
    this.#count += 1;
    this.logger.error({ event: this.event, key, ...fields, err }, `${key}: failed; the run goes on with the next one`);
    if (this.#alerted.has(key)) return;
    if (this.#alerted.size >= MAX_REMEMBERED) this.#alerted.clear();
    this.#alerted.add(key);
    this.alert?.(this.alertCode);
  }
}
