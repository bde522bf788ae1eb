// What a process reloads on SIGHUP, and when one of its files changes (polled every
// WATCH_INTERVAL_MS: fs.watch misses the rename-into-place that editors and certificate tools
// do). Each reload is logged with its outcome; a failed one keeps the loaded version.
import { unwatchFile, watchFile } from 'node:fs';
import type { Logger } from '../log.js';
import type { LoadedVersion, Reloadable } from '../support/reloadable.js';
import { holdHangups, whenStarted } from './hangups.js';

const WATCH_INTERVAL_MS = 2000;

export class Reloads {
  readonly #entries = new Map<string, Reloadable<unknown>>();

  constructor(private readonly logger: Logger) {
    holdHangups(); // a SIGHUP before onSignal() is held, not the end of the process
  }

  /** Registers `reloadable` under `name` and watches its files. */
  add<T>(name: string, reloadable: Reloadable<T>): Reloadable<T> {
    this.#entries.set(name, reloadable);
    for (const file of reloadable.files) {
      watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, (now, before) => {
        if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino || now.size !== before.size) this.reloadOne(name, 'file-change');
      });
    }
    return reloadable;
  }

  /** Reloads everything (SIGHUP). */
  reloadAll(trigger: string): void {
    for (const name of this.#entries.keys()) this.reloadOne(name, trigger);
  }

  /** The loaded version of each, for /readyz. */
  loaded(): Record<string, LoadedVersion> {
    return Object.fromEntries([...this.#entries].map(([name, r]) => [name, r.loaded()]));
  }

  /**
   * Reloads on SIGHUP from now on (call once the parts are up), and now if one came during start;
   * `forward` passes each SIGHUP on (to the listener processes, which reload their own files).
   */
  onSignal(forward?: () => void): void {
    const held = whenStarted(() => {
      this.logger.info({ event: 'reload.requested', trigger: 'SIGHUP' }, 'SIGHUP: reloading');
      this.reloadAll('SIGHUP');
      forward?.();
    });
    if (held === 0) return;
    this.logger.info(
      { event: 'reload.after_start', trigger: 'SIGHUP', held },
      'a SIGHUP arrived during start: reloading now that every part is up',
    );
    this.reloadAll('SIGHUP during start');
    forward?.();
  }

  stop(): void {
    for (const r of this.#entries.values()) for (const file of r.files) unwatchFile(file);
  }

  private reloadOne(name: string, trigger: string): void {
    const entry = this.#entries.get(name);
    if (entry === undefined) return;
    const outcome = entry.reload();
    if (outcome.kind === 'reloaded')
      this.logger.info({ event: 'reload.done', what: name, trigger, version: outcome.version }, `${name} reloaded`);
    else if (outcome.kind === 'failed') {
      this.logger.error(
        { event: 'reload.failed', what: name, trigger, error: outcome.error, keptVersion: outcome.keptVersion },
        `${name} not reloaded, the loaded version stays: ${outcome.error}`,
      );
    } else this.logger.info({ event: 'reload.unchanged', what: name, trigger, version: outcome.version }, `${name} unchanged`);
  }
}
