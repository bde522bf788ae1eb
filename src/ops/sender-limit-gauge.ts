// letter_intake_sender_limit_use_ratio{sender,limit}: each sender's use of each of its limits as
// the last admission in this process found it (the counts are shared in Redis, so any listener's
// value is the sender's). A value is dropped once no admission renewed it for STALE_MS, so a
// sender that went quiet stops raising LetterIntakeSenderNearLimit. Listener processes' values
// are combined by their maximum, not summed: each saw the same shared counts.
import { Gauge, type Registry } from 'prom-client';

const STALE_MS = 10 * 60_000;

export function senderLimitGauge(registers: Registry[], clock: () => number): (senderId: string, limit: string, ratio: number) => void {
  const seen = new Map<string, { readonly labels: { sender: string; limit: string }; readonly ratio: number; readonly at: number }>();
  new Gauge({
    name: 'letter_intake_sender_limit_use_ratio',
    help: "A sender's use of its limit (SENDERS_FILE limits) at its latest admission, 1 = reached; by sender id and limit",
    labelNames: ['sender', 'limit'] as const,
    registers,
    aggregator: 'max',
    collect() {
      this.reset();
      const now = clock();
      for (const [key, value] of seen) {
        if (now - value.at > STALE_MS) seen.delete(key);
        else this.set(value.labels, value.ratio);
      }
    },
  });
  return (sender, limit, ratio) => seen.set(`${sender} ${limit}`, { labels: { sender, limit }, ratio, at: clock() });
}
