// The sending MTA as the fault tests need it: one delivery attempt over a fresh connection, and
// re-sending after a 4xx or a lost connection until a final answer, within a bound.
import { setTimeout as delay } from 'node:timers/promises';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { PROCESSING_ADDRESS } from './gateway.js';
import { type Reply, SmtpClient } from './smtp-client.js';

/** One attempt: the DATA reply, or the first reply that was not 250 (code 0: connection lost). */
export async function offer(port: number, raw: Buffer): Promise<Reply> {
  let opened: Awaited<ReturnType<typeof SmtpClient.open>>;
  try {
    opened = await SmtpClient.open(port);
  } catch {
    return { code: 0, text: '(connection refused)' };
  }
  const { client, greeting } = opened;
  try {
    if (greeting.code !== 220) return greeting;
    const replies = await client.send({ from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
    return replies.data ?? Object.values(replies).find((r) => r.code !== 250) ?? { code: 0, text: '(connection closed)' };
  } finally {
    await client.quit();
  }
}

export interface Outcome {
  /** The final answer: 250 or a 5xx. */
  readonly final: Reply;
  /** Answers before it: 4xx, or 0 for a refused or dropped connection. */
  readonly retried: readonly number[];
}

export async function deliverUntilFinal(port: number, raw: Buffer, boundMs = 120_000): Promise<Outcome> {
  const deadline = Date.now() + boundMs;
  const retried: number[] = [];
  for (;;) {
    const reply = await offer(port, raw);
    if (reply.code === 250 || reply.code >= 500) return { final: reply, retried };
    retried.push(reply.code);
    if (Date.now() > deadline) throw new Error(`no final answer within ${boundMs} ms; last ${reply.code} ${reply.text}`);
    await delay(200); // the MTA's retry interval
  }
}
