// The readiness verdict for /readyz, from facts gathered by the server (pure: no I/O, no clock).
//
// Redis, the queue and (for the listener and the worker) the raw store must answer: without
// them nothing is accepted or processed.
// The Sender API is reported, and makes the process unready only when it has been failing for
// more than API_OUTAGE_GRACE_MS with no healthy answer since the failing began. The choice: a
// single failed call (a blip the worker's retries absorb) must not flap readiness, while a
// sustained outage should show up where operators and orchestrators look. Accepted mail is not
// at risk either way (it waits in the queue), so the grace favours stability over speed.
// A process that has made no API call yet (or makes none, e.g. the `ops` role) is ready.
// Until the process's own role (the SMTP listener bound, the worker connected) has started, it
// is not ready: the ops server comes up first, to be watched while the rest starts.
import type { ApiHealthSnapshot } from './api-health.js';

export const API_OUTAGE_GRACE_MS = 60_000;

export interface DependencyCheck {
  readonly ok: boolean;
  readonly error?: string;
  /** True when this process does not use the dependency (reported, not checked). */
  readonly skipped?: boolean;
}

export interface QueueCheck extends DependencyCheck {
  /** Jobs by BullMQ state, when the queue answered. */
  readonly counts?: Readonly<Record<string, number>>;
}

export interface SenderApiCheck {
  readonly ok: boolean;
  readonly lastOkAt?: string;
  readonly lastFailureAt?: string;
  readonly failingSince?: string;
  readonly lastError?: string;
  /** Why the check is not ok, or why it was not judged. */
  readonly note?: string;
  /** With several Sender APIs: each one's own check, by base URL. */
  readonly apis?: Readonly<Record<string, SenderApiCheck>>;
}

export interface ReadinessInput {
  readonly redis: DependencyCheck;
  readonly queue: QueueCheck;
  /** The raw store's probe (absent: this process uses none). */
  readonly rawStore?: DependencyCheck;
  readonly api: ApiHealthSnapshot | undefined;
  /** Each Sender API's own health, by base URL (a worker with senders on several APIs). */
  readonly apis?: ReadonlyMap<string, ApiHealthSnapshot> | undefined;
  /** Has this process's role started? (Absent: it has.) */
  readonly started?: boolean;
  /** Each listener process's own readiness, by its number (absent: the listener runs in this process). */
  readonly listeners?: Readonly<Record<string, DependencyCheck>> | undefined;
  /** Milliseconds since the epoch. */
  readonly now: number;
}

export interface Readiness {
  readonly ready: boolean;
  readonly checks: {
    readonly role: DependencyCheck;
    readonly redis: DependencyCheck;
    readonly queue: QueueCheck;
    readonly rawStore: DependencyCheck;
    readonly senderApi: SenderApiCheck;
  };
  /** With listener processes: each one's check; the process is ready only when every one is. */
  readonly listeners?: Readonly<Record<string, DependencyCheck>>;
}

export function judgeReadiness(input: ReadinessInput): Readiness {
  const senderApi = judgeSenderApis(input.api, input.apis, input.now);
  const rawStore: DependencyCheck = input.rawStore ?? { ok: true, skipped: true };
  const role: DependencyCheck = input.started === false ? { ok: false, error: 'still starting' } : { ok: true };
  const listeners = input.listeners;
  const listenersOk = listeners === undefined || Object.values(listeners).every((check) => check.ok);
  return {
    ready: role.ok && input.redis.ok && input.queue.ok && rawStore.ok && senderApi.ok && listenersOk,
    checks: { role, redis: input.redis, queue: input.queue, rawStore, senderApi },
    ...(listeners === undefined ? {} : { listeners }),
  };
}

/**
 * With several Sender APIs each is judged on its own, and the process is unready only when all
 * of them are down: one API's outage (a staging deployment) holds only its own senders' letters,
 * and the process still delivers the others'.
 */
function judgeSenderApis(
  api: ApiHealthSnapshot | undefined,
  apis: ReadonlyMap<string, ApiHealthSnapshot> | undefined,
  now: number,
): SenderApiCheck {
  if (apis === undefined || apis.size < 2) return judgeSenderApi(api, now);
  const each = Object.fromEntries([...apis].map(([url, health]) => [url, judgeSenderApi(health, now)]));
  const down = Object.entries(each)
    .filter(([, check]) => !check.ok)
    .map(([url]) => url);
  return {
    ok: down.length < apis.size,
    apis: each,
    ...(down.length === 0 ? {} : { note: `failing with no healthy answer: ${down.join(', ')}` }),
  };
}

function judgeSenderApi(api: ApiHealthSnapshot | undefined, now: number): SenderApiCheck {
  if (api === undefined) return { ok: true, note: 'not used by this process' };
  const times = {
    ...(api.lastOkAt === undefined ? {} : { lastOkAt: iso(api.lastOkAt) }),
    ...(api.lastFailureAt === undefined ? {} : { lastFailureAt: iso(api.lastFailureAt) }),
    ...(api.lastError === undefined ? {} : { lastError: api.lastError }),
  };
  if (api.lastFailureAt === undefined) {
    return { ok: true, ...times, ...(api.lastOkAt === undefined ? { note: 'no call yet' } : {}) };
  }
  const recovered = api.lastOkAt !== undefined && api.lastOkAt >= api.lastFailureAt;
  if (recovered) return { ok: true, ...times };
  const since = api.failingSince ?? api.lastFailureAt;
  const failingMs = now - since;
  const down = failingMs > API_OUTAGE_GRACE_MS;
  return {
    ok: !down,
    ...times,
    failingSince: iso(since),
    note: down
      ? `failing for ${Math.round(failingMs / 1000)} s with no healthy answer (grace ${API_OUTAGE_GRACE_MS / 1000} s)`
      : `failing for ${Math.round(failingMs / 1000)} s, within the ${API_OUTAGE_GRACE_MS / 1000} s grace`,
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
