// What /readyz tells anyone who asks: each check's stable name with `ok` or `failing`, nothing
// more. The reasons (store paths, buckets, errno, stack text, API errors, queue counts) are for
// operators: the same verdict in full at /admin/readyz behind the admin login, and in the log
// line `ops.unready`. The SMTP replies keep such details from senders for the same reason.
import type { Readiness } from './readiness.js';

export type CheckState = 'ok' | 'failing';

export interface PublicReadiness {
  readonly ready: boolean;
  readonly checks: Readonly<Record<keyof Readiness['checks'], CheckState>>;
  /** With listener processes: each one's state, by its number. */
  readonly listeners?: Readonly<Record<string, CheckState>>;
}

export function publicReadiness(verdict: Readiness): PublicReadiness {
  const { role, redis, queue, rawStore, senderApi } = verdict.checks;
  const state = (check: { readonly ok: boolean }): CheckState => (check.ok ? 'ok' : 'failing');
  return {
    ready: verdict.ready,
    checks: { role: state(role), redis: state(redis), queue: state(queue), rawStore: state(rawStore), senderApi: state(senderApi) },
    ...(verdict.listeners === undefined
      ? {}
      : { listeners: Object.fromEntries(Object.entries(verdict.listeners).map(([n, check]) => [n, state(check)])) }),
  };
}
