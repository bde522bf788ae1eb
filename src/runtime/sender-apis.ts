// The worker's Sender APIs, one entry per base URL (SENDER_API_URL and each sender's
// senderApiUrl): its own circuit, client (sessions) and status book, made when first needed. One
// API's outage opens its circuit alone; jobs for the others run on.

import type { Config } from '../config.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { Logger } from '../log.js';
import { createSenderApiClient, type SenderApiClient } from '../sender-api/index.js';
import type { Sender } from '../senders/directory.js';
import { ApiCircuit, DEFAULT_WINDOW_CALLS, DEFAULT_WINDOW_MS } from '../worker/api-circuit.js';
import type { LetterStatuses } from '../worker/letter-statuses.js';
import { redisLetterStatuses } from '../worker/status-book.js';

export interface SenderApi {
  readonly circuit: ApiCircuit;
  readonly client: SenderApiClient;
  readonly statuses: LetterStatuses;
}

export interface SenderApisDeps {
  readonly config: Config;
  /** SENDER_API_URL (or the sandbox's): where a sender without senderApiUrl's letters go. */
  readonly defaultUrl: string;
  readonly connection: Parameters<typeof redisLetterStatuses>[0];
  readonly clock: () => number;
  readonly logger: Logger;
  readonly observer: IntakeObserver;
}

export class SenderApis {
  readonly #apis = new Map<string, SenderApi>();

  constructor(private readonly deps: SenderApisDeps) {}

  /** The base URL a sender's new intake goes to. */
  baseUrlOf(sender: Sender | undefined): string {
    return sender?.senderApiUrl ?? this.deps.defaultUrl;
  }

  /** The API at this base URL, made on first use. */
  at(baseUrl: string): SenderApi {
    const known = this.#apis.get(baseUrl);
    if (known !== undefined) return known;
    const { config, clock, logger, observer } = this.deps;
    const circuit = new ApiCircuit({
      api: baseUrl,
      policy: { minCalls: config.apiCircuit.minCalls, windowMs: DEFAULT_WINDOW_MS, windowCalls: DEFAULT_WINDOW_CALLS },
      trialIntervalMs: config.apiCircuit.probeIntervalMs,
      maxHoldMs: config.apiCircuit.maxHoldMs,
      clock,
      logger,
      observer,
    });
    const client = createSenderApiClient({
      baseUrl,
      clock,
      timeoutMs: config.senderApiTimeoutMs,
      logger: logger.child({ api: baseUrl }),
      onCall: (e) => observer.apiCall(e.endpoint, e.status, e.errorCode, e.durationMs / 1000, baseUrl),
      gate: circuit,
    });
    const api = { circuit, client, statuses: redisLetterStatuses(this.deps.connection, config.redisPrefix, baseUrl, clock) };
    this.#apis.set(baseUrl, api);
    return api;
  }

  /** Only the APIs made so far: a circuit that never judged a call holds nothing. */
  circuitIfMade(baseUrl: string): ApiCircuit | undefined {
    return this.#apis.get(baseUrl)?.circuit;
  }

  stop(): void {
    for (const api of this.#apis.values()) api.circuit.stop();
  }
}
