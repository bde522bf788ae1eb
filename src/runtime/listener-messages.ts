// What a primary and its listener processes (SMTP_PROCESSES > 1) say to each other over the
// cluster's IPC channel. Every message is checked on arrival: the channel carries Node's own
// cluster messages too, and anything not ours is ignored.
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { z } from 'zod';
import type { MetricsJson } from '../ops/listener-processes.js';

/** The environment variable that gives a listener process its number (1 to SMTP_PROCESSES). */
export const LISTENER_NUMBER_VARIABLE = 'LETTER_INTAKE_LISTENER';

/** The exit code of a listener process whose raw store broke (a failed fsync): the primary starts it again. */
export const STORE_BROKEN_EXIT_CODE = 75;

const loaded = z.record(z.string(), z.object({ version: z.string(), loadedAt: z.string() }));
const check = z.object({ ok: z.boolean(), error: z.string().optional(), skipped: z.boolean().optional() });
const metrics = z.custom<MetricsJson>((value) => Array.isArray(value) && value.every(isMetric));

function isMetric(value: unknown): value is MetricObjectWithValues<MetricValue<string>> {
  return typeof value === 'object' && value !== null && 'name' in value && 'values' in value && Array.isArray(value.values);
}

/** From the primary to a listener process. */
export const toListener = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('letter-intake:readiness'), id: z.number() }),
  z.object({ kind: z.literal('letter-intake:metrics'), id: z.number() }),
  /** Stop taking mail, finish the transactions in flight (SMTP_CLOSE_TIMEOUT_MS), exit. */
  z.object({ kind: z.literal('letter-intake:shutdown') }),
]);
export type ToListener = z.infer<typeof toListener>;

/** From a listener process to the primary. */
export const fromListener = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('letter-intake:listening'), port: z.number() }),
  /** The start failed: the error's class name, its code (EADDRINUSE …) and its message. */
  z.object({ kind: z.literal('letter-intake:failed'), name: z.string(), code: z.string().optional(), message: z.string() }),
  /** Its own check, and the versions of the files it loaded. */
  z.object({ kind: z.literal('letter-intake:readiness'), id: z.number(), check, loaded }),
  z.object({ kind: z.literal('letter-intake:metrics'), id: z.number(), metrics }),
]);
export type FromListener = z.infer<typeof fromListener>;
