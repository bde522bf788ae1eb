// The Sender API: reached over HTTPS (plain http only to loopback, the sandbox), and each
// sender's credentials accepted by a login (no letter is created).
import { isLoopbackHost } from '../sender-api/base-url.js';
import { SenderApiError } from '../sender-api/errors.js';
import type { Sender } from '../senders/directory.js';
import { type CheckResult, fail, ok, warn } from './result.js';

const AREA = 'Sender API';

/** Whether session ids and secrets can cross the network to this address in clear text. */
export function judgeApiTransport(raw: string): CheckResult {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(AREA, 'HTTPS', `SENDER_API_URL ${raw} is not a URL`);
  }
  if (url.protocol === 'https:') return ok(AREA, 'HTTPS', url.origin);
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) {
    return warn(AREA, 'HTTPS', `${url.origin} is plain http, acceptable only because it is loopback (the sandbox)`);
  }
  return fail(AREA, 'HTTPS', `${url.origin} is not https: client secrets and sessions would cross the network in clear text; use https://`);
}

/** A login outcome for one sender: nothing thrown, or what the API said. */
export type LoginOutcome = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

export function judgeLogin(sender: Sender, outcome: LoginOutcome): CheckResult {
  const name = `login as ${sender.companyNameEn} (${sender.apiClientId})`;
  if (outcome.ok) return ok(AREA, name, 'accepted');
  const err = outcome.error;
  if (!(err instanceof SenderApiError)) return fail(AREA, name, String(err instanceof Error ? err.message : err));
  switch (err.errorCode) {
    case 'InvalidCredentials':
      return fail(
        AREA,
        name,
        'InvalidCredentials: the API refuses this client id and secret; fix them in SENDERS_FILE (or its secret variable)',
      );
    case 'IpAddressUnauthorized':
      return fail(
        AREA,
        name,
        "IpAddressUnauthorized: this gateway's address is not on the sender's API allow-list; ask for it to be added",
      );
    case 'InsufficientAuthorization':
      return fail(AREA, name, 'InsufficientAuthorization: the client may not create letters; ask for the permission');
    default:
      break;
  }
  if (err.statusCode === undefined)
    return fail(AREA, name, `the API did not answer (${err.message}); check SENDER_API_URL and the network`);
  return fail(AREA, name, `${err.message}${err.traceId === undefined ? '' : ` (traceId ${err.traceId})`}`);
}

/** All logins unanswered: one line for the API, not one per sender. */
export function judgeReachable(outcomes: readonly LoginOutcome[], origin: string): CheckResult {
  const unanswered = outcomes.filter((o) => !o.ok && o.error instanceof SenderApiError && o.error.statusCode === undefined);
  if (outcomes.length > 0 && unanswered.length === outcomes.length) {
    return fail(AREA, 'reachable', `${origin} did not answer any login; check SENDER_API_URL, the network and the API`);
  }
  return ok(AREA, 'reachable', origin);
}
