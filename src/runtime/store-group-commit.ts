// Which raw store shares its directory fsyncs (GROUP_COMMIT): the listener's alone. The worker
// writes a few markers per letter and gains nothing by sharing; and a group-commit store breaks
// for good on one failed fsync, which in a worker would fail every job at its checkpoint writes,
// spending attempts, until a restart. `start` shares one store between its worker, the ops
// probes and a listener running in its own process, so that store commits alone too.
import type { Config } from '../config.js';
import type { GroupCommitSettings } from '../raw-store/group-sync.js';

/** Who opens the store: the `smtp` role or a listener process, the `worker` or `portal` role, `start`, a one-off command. */
export type StoreHolder = 'listener' | 'worker' | 'portal' | 'start' | 'command';

export function storeGroupCommit(holder: StoreHolder, config: Pick<Config, 'groupCommit'>): GroupCommitSettings | undefined {
  return holder === 'listener' ? config.groupCommit : undefined;
}
