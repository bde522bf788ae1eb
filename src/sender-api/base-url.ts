// The Sender API's base address: https, or plain http only to this machine (the sandbox).
// Session ids and client secrets must never cross a network in clear text.
import { isIPv4 } from 'node:net';
import { SenderApiConfigError } from './errors.js';

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host === '[::1]' || host === '::1') return true;
  return isIPv4(host) && host.startsWith('127.');
}

/** Parses and checks SENDER_API_URL (or the setting `name`, a sender's senderApiUrl); throws a SenderApiConfigError naming it. */
export function checkBaseUrl(raw: string, name = 'SENDER_API_URL'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SenderApiConfigError(`${name} is not a valid URL`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new SenderApiConfigError(`${name} must not contain a user name or password`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  if (url.protocol === 'http:') {
    throw new SenderApiConfigError(
      `${name} must use https:// (plain http:// is allowed only for loopback: 127.0.0.0/8, ::1, localhost); got ${url.origin}`,
    );
  }
  throw new SenderApiConfigError(`${name} must be an https:// address; got protocol ${url.protocol}`);
}
