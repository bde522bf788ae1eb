// Prometheus metrics: the IntakeObserver the listener, the worker and the API client report to,
// turned into prom-client counters and histograms on one registry, plus the queue depth read
// from BullMQ at scrape time and the process's default metrics (unprefixed, so stock Node.js
// dashboards work). Alert on `letter_intake_operator_alerts_total`: it only moves when an
// operator must act (credentials, authorization, IP allow-list).

import type { Queue } from 'bullmq';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { withTimeout } from '../bounded.js';
import type { IntakeObserver } from '../intake/observer.js';
import { errorCodeLabel, unlistedErrorCode } from '../sender-api/error-code-label.js';
import { type ApiHealth, createApiHealth } from './api-health.js';
import { senderLimitGauge } from './sender-limit-gauge.js';

const PREFIX = 'letter_intake_';

/** SMTP 250 → letter submitted: seconds when the API is healthy, minutes through retries. */
const END_TO_END_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];
/** One stage: milliseconds for store and auth, up to minutes for queue_wait under backlog. */
const STAGE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** One Sender API request, bounded by SENDER_API_TIMEOUT_MS (30 s by default). */
const API_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The API error codes that fail an intake until an operator acts (docs/design.md §9); exported at 0. */
const ALERT_CODES = ['InvalidCredentials', 'InsufficientAuthorization', 'IpAddressUnauthorized'];

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;
/** A scrape must not hang on a Redis that is away: the queue gauge is left empty instead. */
const QUEUE_COUNT_TIMEOUT_MS = 1000;

export interface MetricsOptions {
  /** Where the metrics are registered; a fresh registry when absent (never the global one). */
  readonly registry?: Registry;
  /** The intake queue whose job counts are exported; no queue gauge values without it. */
  readonly queue?: Queue;
  /** Milliseconds since the epoch, for the API health times; Date.now when absent. */
  readonly clock?: () => number;
}

export interface Metrics {
  readonly registry: Registry;
  readonly observer: IntakeObserver;
  readonly apiHealth: ApiHealth;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = options.registry ?? new Registry();
  const clock = options.clock ?? Date.now;
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const connections = new Counter({
    name: `${PREFIX}smtp_connections_total`,
    help: 'SMTP connections accepted by the listener',
    registers,
  });
  const replies = new Counter({
    name: `${PREFIX}smtp_replies_total`,
    help: 'SMTP replies sent, by reply code and the command answered',
    labelNames: ['code', 'command'] as const,
    registers,
  });
  const ended = new Counter({
    name: `${PREFIX}intakes_ended_total`,
    help: 'Intakes that reached a final state, by state and reason code',
    labelNames: ['state', 'reason'] as const,
    registers,
  });
  const endToEnd = new Histogram({
    name: `${PREFIX}end_to_end_seconds`,
    help: 'Seconds from the SMTP 250 to the letter submitted (submitted intakes only)',
    buckets: END_TO_END_BUCKETS,
    registers,
  });
  const stages = new Histogram({
    name: `${PREFIX}stage_duration_seconds`,
    help: 'Seconds spent in one stage of an intake',
    labelNames: ['stage'] as const,
    buckets: STAGE_BUCKETS,
    registers,
  });
  const apiCalls = new Counter({
    name: `${PREFIX}api_calls_total`,
    help: 'Sender API calls, by Sender API base URL, endpoint, HTTP status ("none": no answer) and errorCode',
    labelNames: ['api', 'endpoint', 'status', 'errorCode'] as const,
    registers,
  });
  const apiDuration = new Histogram({
    name: `${PREFIX}api_duration_seconds`,
    help: 'Seconds one Sender API call took, by Sender API base URL and endpoint',
    labelNames: ['api', 'endpoint'] as const,
    buckets: API_BUCKETS,
    registers,
  });
  const sessionRefusals = new Counter({
    name: `${PREFIX}session_refusals_total`,
    help: 'Messages refused in the SMTP session by their own rules, by reason code',
    labelNames: ['reason'] as const,
    registers,
  });
  const alerts = new Counter({
    name: `${PREFIX}operator_alerts_total`,
    help: 'Intakes failed in a way only an operator can fix, by API errorCode (alert on any increase)',
    labelNames: ['errorCode'] as const,
    registers,
  });
  for (const errorCode of ALERT_CODES) alerts.inc({ errorCode }, 0);
  const notices = new Counter({
    name: `${PREFIX}notices_total`,
    help: 'Notices to senders entering a state, by kind (rejected, failed, submitted) and state',
    labelNames: ['kind', 'state'] as const,
    registers,
  });

  const senderUse = senderLimitGauge(registers, clock);

  const queue = options.queue;
  if (queue !== undefined) {
    new Gauge({
      name: `${PREFIX}queue_jobs`,
      help: 'Jobs in the intake queue by BullMQ state (absent when Redis did not answer)',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        this.reset();
        try {
          const counts = await withTimeout(queue.getJobCounts(...QUEUE_STATES), QUEUE_COUNT_TIMEOUT_MS, 'queue job counts');
          for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
        } catch {
          // Left empty: `absent(letter_intake_queue_jobs)` is the signal; /readyz says why.
        }
      },
    });
  }

  const apiHealth = createApiHealth();
  const observer: IntakeObserver = {
    smtpConnection: () => connections.inc(),
    smtpReply: (code, command) => replies.inc({ code: String(code), command }),
    stageDuration: (stage, seconds) => stages.observe({ stage }, seconds),
    intakeEnded: (state, reasonCode, latencySeconds) => {
      ended.inc({ state, reason: reasonCode === '' ? 'none' : reasonCode });
      if (state === 'submitted' && latencySeconds !== undefined) endToEnd.observe(latencySeconds);
    },
    apiCall: (endpoint, status, errorCode, seconds, api = '') => {
      // a known code, else HTTP<status> or NetworkError: a label never takes a text from outside
      // (the base URL is the operator's own setting)
      const label = errorCode === undefined ? 'none' : errorCodeLabel(errorCode, status);
      apiCalls.inc({ api, endpoint, status: status === undefined ? 'none' : String(status), errorCode: label });
      apiDuration.observe({ api, endpoint }, seconds);
      apiHealth.record(status, unlistedErrorCode(errorCode) ?? errorCode, clock(), api === '' ? undefined : api);
    },
    operatorAlert: (errorCode) => alerts.inc({ errorCode }),
    noticeState: (kind, state) => notices.inc({ kind, state }),
    sessionRefused: (reasonCode) => sessionRefusals.inc({ reason: reasonCode }),
    senderLimitUse: senderUse,
  };
  return { registry, observer, apiHealth };
}
