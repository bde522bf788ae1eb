// Which errors mean "Redis is away or changing primaries" rather than a defect: the worker puts
// such a job back without spending an attempt (a failover costs no intake its retries). And which
// mean Redis refused a write for its own state (full, its permissions, a failed save): storage
// trouble where spending an attempt could end an intake wrongly (the claim, recording a submitted
// letter). The table is ioredis's and Redis's own words, the one place that reads them.

export type RedisTrouble =
  /** A replica, a loading or a leaderless server answered: a failover is under way. */
  | 'failover'
  /** The connection is gone or was never made. */
  | 'connection'
  /** Redis did not answer within the command's bound. */
  | 'timeout';

/** Redis's error prefixes that a failover (or a restart) answers with. */
const FAILOVER_REPLIES = ['READONLY', 'LOADING', 'MASTERDOWN', 'TRYAGAIN', 'CLUSTERDOWN', 'NOREPLICAS'] as const;
/** Redis's refusals of a command for its own state, which no failover ends: a person or time must. */
const REFUSAL_REPLIES = ['OOM', 'NOPERM', 'MISCONF', 'BUSY', 'NOAUTH'] as const;
/** Socket errors of a lost or refused connection. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
/** ioredis's messages for a command it could not send or that lost its connection. */
const CONNECTION_MESSAGES = ['Connection is closed.', "Stream isn't writeable and enableOfflineQueue options is false"];

export function redisTroubleOf(err: unknown): RedisTrouble | undefined {
  if (!(err instanceof Error)) return undefined;
  if (err.name === 'ReplyError' && FAILOVER_REPLIES.some((prefix) => err.message.startsWith(prefix))) return 'failover';
  if (err.name === 'MaxRetriesPerRequestError') return 'connection';
  const code = 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  if (code !== undefined && CONNECTION_CODES.has(code)) return 'connection';
  if (CONNECTION_MESSAGES.some((m) => err.message.startsWith(m))) return 'connection';
  if (err.message === 'Command timed out') return 'timeout';
  return undefined;
}

/** Redis away, or refusing writes for its own state (OOM, NOPERM, MISCONF…); never a script's error or a defect. */
export function isStorageError(err: unknown): boolean {
  if (redisTroubleOf(err) !== undefined) return true;
  return err instanceof Error && err.name === 'ReplyError' && REFUSAL_REPLIES.some((prefix) => err.message.startsWith(`${prefix} `));
}
