// The open circuit's question to the Sender API: does it answer at all? A GET of the letters
// without a session: a healthy API refuses it (401), which is an answer; a 5xx, a time-out or a
// refused connection is not. No credentials are sent and nothing is created.
import { isOutage } from './api-circuit.js';

export function senderApiProbe(baseUrl: string, timeoutMs: number): () => Promise<boolean> {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const url = new URL('api/v1/letters', base);
  return async () => {
    try {
      const response = await fetch(url, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      await response.body?.cancel();
      return !isOutage(response.status);
    } catch {
      return false;
    }
  };
}
