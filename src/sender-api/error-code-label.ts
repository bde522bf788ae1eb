// An `errorCode` comes from whatever answers at SENDER_API_URL (the API, or a proxy in front of
// it): any text, any length. As a metric label or part of a Redis key it must come from a known,
// small set, or every new text is a new time series or key for ever. The raw code is kept
// elsewhere (the log, the record's reason), cut to RAW_ERROR_CODE_MAX_CHARS.
import { cutUtf8 } from '../net/cut-text.js';

/** The contract's ten error codes, and TooManyRequests (a 429's). */
export const KNOWN_ERROR_CODES: ReadonlySet<string> = new Set([
  'UnexpectedError',
  'ServiceUnavailable',
  'InvalidSession',
  'InvalidData',
  'EntityNotFound',
  'InvalidCredentials',
  'InsufficientAuthorization',
  'IpAddressUnauthorized',
  'ApiClientIdRequired',
  'ApiClientSecretRequired',
  'TooManyRequests',
]);

export const RAW_ERROR_CODE_MAX_CHARS = 64;

/**
 * The code as a label or key part: a known code as it is; otherwise the HTTP status
 * (`HTTP<status>`), or `NetworkError` when there was no answer. Returns undefined only for an
 * answer with neither code nor status (no call failed).
 */
export function errorCodeLabel(errorCode: string | undefined, status: number | undefined): string {
  if (errorCode !== undefined && KNOWN_ERROR_CODES.has(errorCode)) return errorCode;
  return status === undefined ? 'NetworkError' : `HTTP${status}`;
}

/** A code the label does not show, cut for the log and the record; undefined when the label is the code. */
export function unlistedErrorCode(errorCode: string | undefined): string | undefined {
  if (errorCode === undefined || KNOWN_ERROR_CODES.has(errorCode)) return undefined;
  // characters (code points), not bytes; a megabyte of code is not split whole
  return Array.from(cutUtf8(errorCode, RAW_ERROR_CODE_MAX_CHARS * 4))
    .slice(0, RAW_ERROR_CODE_MAX_CHARS)
    .join('');
}
