// The parts a composition root has started so far: on a failed start they are closed again,
// the last started first, so nothing (an embedded Redis above all) outlives the process.
import type { Logger } from '../log.js';
import { type Closable, closeInOrder } from './lifecycle.js';

export class StartedParts {
  readonly #parts: Closable[] = [];

  constructor(private readonly logger: Logger) {}

  add(part: Closable): void {
    this.#parts.push(part);
  }

  /** The parts started, in the order of `names` (those not started are left out). */
  inOrder(names: readonly string[]): Closable[] {
    return names.flatMap((name) => this.#parts.filter((p) => p.name === name));
  }

  /** Closes everything started, newest first. */
  async closeAll(): Promise<void> {
    await closeInOrder([...this.#parts].reverse(), this.logger);
    this.#parts.length = 0;
  }
}
