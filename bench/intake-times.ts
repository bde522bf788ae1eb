// End-to-end figures from the gateway's own intake records (src/intake/store.ts): each record's
// hash holds `state` and one `at.<state>` epoch-ms field per state it went through.
import type { Redis } from 'ioredis';
import { intakeKeys } from '../src/intake/keys.js';

export interface IntakeTimes {
  readonly state: string;
  /** The 250: `at.queued`, else `at.received` (see `queuedMissing`). */
  readonly queuedAt: number | undefined;
  /**
   * True when the record has no `at.queued`: a worker took the job between the listener's
   * queue.add and its received → queued transition, so that transition was refused. The
   * listener answered 250 right after; `at.received` (a few ms earlier) stands in for it.
   */
  readonly queuedMissing: boolean;
  readonly processingAt: number | undefined;
  readonly submittedAt: number | undefined;
}

const FINAL = new Set(['submitted', 'rejected', 'failed']);

export async function readIntakeTimes(redis: Redis, prefix: string, ids: readonly string[]): Promise<IntakeTimes[]> {
  const keys = intakeKeys(prefix);
  const out: IntakeTimes[] = [];
  for (let at = 0; at < ids.length; at += 500) {
    const pipeline = redis.pipeline();
    for (const id of ids.slice(at, at + 500))
      pipeline.hmget(keys.record(id), 'state', 'at.received', 'at.queued', 'at.processing', 'at.submitted');
    for (const [err, value] of (await pipeline.exec()) ?? []) {
      const [state, received, queued, processing, submitted] = err === null ? strings(value) : [];
      out.push({
        state: state ?? 'missing',
        queuedAt: num(queued) ?? num(received),
        queuedMissing: queued === undefined,
        processingAt: num(processing),
        submittedAt: num(submitted),
      });
    }
  }
  return out;
}

/** Polls until every intake has ended (submitted, rejected or failed) or `timeoutMs` passed. */
export async function waitUntilEnded(redis: Redis, prefix: string, ids: readonly string[], timeoutMs: number): Promise<IntakeTimes[]> {
  const deadline = Date.now() + timeoutMs;
  let pending = [...ids];
  for (;;) {
    const times = await readIntakeTimes(redis, prefix, pending);
    pending = pending.filter((_, i) => !FINAL.has(times[i]?.state ?? ''));
    if (pending.length === 0 || Date.now() > deadline) return readIntakeTimes(redis, prefix, ids);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Percentiles {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/** Nearest-rank percentiles (a p99 of 20 samples is the largest one). */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number): number => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { count: sorted.length, p50: rank(0.5), p95: rank(0.95), p99: rank(0.99), max: sorted.at(-1) ?? 0 };
}

export interface EndToEnd {
  readonly accepted: number;
  readonly letters: number;
  readonly notSubmitted: Readonly<Record<string, number>>;
  /** Records without `at.queued` (timed from `at.received` instead). */
  readonly queuedMissing: number;
  /** 250 (at.queued) → PendingApproval (at.submitted), milliseconds. */
  readonly latencyMs: Percentiles;
  /** Letters over the span from the first queued (or first picked up) to the last submitted. */
  readonly lettersPerSec: number;
  /** Worker service time: job taken (at.processing) → PendingApproval, milliseconds. */
  readonly serviceMs: Percentiles;
  /** Jobs in service on average over the span (total service time ÷ span). */
  readonly meanInService: number;
}

/** `from`: 'queued' spans from the first 250; 'processing' from the first job a worker took. */
export function endToEnd(times: readonly IntakeTimes[], from: 'queued' | 'processing'): EndToEnd {
  const done = times.filter((t) => t.state === 'submitted' && t.submittedAt !== undefined && t.queuedAt !== undefined);
  const notSubmitted: Record<string, number> = {};
  for (const t of times) if (t.state !== 'submitted') notSubmitted[t.state] = (notSubmitted[t.state] ?? 0) + 1;
  const starts = done.map((t) => (from === 'queued' ? t.queuedAt : t.processingAt) ?? Infinity);
  const ends = done.map((t) => t.submittedAt ?? 0);
  const spanMs = done.length === 0 ? 0 : Math.max(...ends) - Math.min(...starts);
  const service = done.map((t) => (t.submittedAt ?? 0) - (t.processingAt ?? t.submittedAt ?? 0));
  return {
    accepted: times.length,
    letters: done.length,
    notSubmitted,
    queuedMissing: times.filter((t) => t.queuedMissing).length,
    latencyMs: percentiles(done.map((t) => (t.submittedAt ?? 0) - (t.queuedAt ?? 0))),
    lettersPerSec: spanMs > 0 ? (done.length * 1000) / spanMs : 0,
    serviceMs: percentiles(service),
    meanInService: spanMs > 0 ? service.reduce((a, b) => a + b, 0) / spanMs : 0,
  };
}

/** An HMGET answer: one string or null per field. */
function strings(value: unknown): (string | undefined)[] {
  return Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v : undefined)) : [];
}

function num(value: string | null | undefined): number | undefined {
  return value === null || value === undefined ? undefined : Number(value);
}
