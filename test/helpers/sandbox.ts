// The sandbox Sender API for tests: a real HTTP server on a free loopback port, a test sender
// directory (two senders, secrets inline) and a clock the test moves by hand.
import { afterEach, beforeEach } from 'vitest';
import { createLogger, type Logger } from '../../src/log.js';
import { startSandbox } from '../../src/sandbox/start.js';
import type { SandboxStore } from '../../src/sandbox/store.js';
import { createSenderApiClient, type SenderApiClientDeps } from '../../src/sender-api/client.js';
import { parseSenderDirectory, type SenderDirectory } from '../../src/senders/directory.js';

export const ACME = {
  senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f',
  companyNameEn: 'Acme Utilities',
  addresses: ['letters@acme.example'],
  apiClientId: 'acme-client',
  apiClientSecret: 'acme-secret-0123456789',
} as const;

export const GLOBEX = {
  senderId: '1b9e4c2a-7d3f-4e8b-8c1a-2f3e4d5c6b7a',
  companyNameEn: 'Globex Insurance',
  addresses: ['post@globex.example'],
  apiClientId: 'globex-client',
  apiClientSecret: 'globex-secret-9876543210',
} as const;

export interface TestSender {
  readonly senderId: string;
  readonly apiClientId: string;
  readonly apiClientSecret: string;
}

/** Two senders; `allowedIps` per sender id when a test needs an allow-list. */
export function testDirectory(allowedIps: Readonly<Record<string, readonly string[]>> = {}): SenderDirectory {
  const senders = [ACME, GLOBEX].map((s) => {
    const ranges = allowedIps[s.senderId];
    return ranges === undefined ? { ...s } : { ...s, allowedIps: [...ranges] };
  });
  return parseSenderDirectory({ senders }, {});
}

export interface TestClock {
  readonly now: () => number;
  advance(ms: number): void;
}

export function testClock(startMs = Date.parse('2026-11-02T09:00:00.000Z')): TestClock {
  let current = startMs;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
  };
}

export interface TestSandbox {
  readonly url: string;
  readonly clock: TestClock;
  readonly store: SandboxStore;
  close(): Promise<void>;
}

export interface TestSandboxOptions {
  readonly directory?: SenderDirectory;
  readonly logger?: Logger;
  readonly clock?: TestClock;
}

export async function startTestSandbox(options: TestSandboxOptions = {}): Promise<TestSandbox> {
  const clock = options.clock ?? testClock();
  const running = await startSandbox({
    directory: options.directory ?? testDirectory(),
    clock: clock.now,
    logger: options.logger ?? createLogger({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
  });
  return { url: running.url, clock, store: running.store, close: running.close };
}

/**
 * A fresh sandbox for every test of the calling block, `sender` logged in: `use` hands the
 * sandbox and the session to the block's own variables before each test; each is closed after.
 */
export function sandboxEachTest(
  use: (sandbox: TestSandbox, session: string) => void,
  options: TestSandboxOptions = {},
  sender: TestSender = ACME,
): void {
  let sandbox: TestSandbox | undefined;
  beforeEach(async () => {
    sandbox = await startTestSandbox(options);
    use(sandbox, await login(sandbox.url, sender));
  });
  afterEach(async () => {
    await sandbox?.close();
  });
}

/** The typed Sender API client on a test sandbox: its clock, a 5 s bound, silent logs; `extra` overrides any of them. */
export function sandboxClient(sandbox: TestSandbox, extra: Partial<SenderApiClientDeps> = {}) {
  return createSenderApiClient({
    baseUrl: sandbox.url,
    clock: sandbox.clock.now,
    timeoutMs: 5000,
    logger: createLogger({ level: 'silent' }),
    ...extra,
  });
}

export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body; undefined for an empty body. */
  readonly json: unknown;
}

export interface CallOptions {
  readonly session?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** An object is sent as JSON; a string is sent as is; Content-Type is application/json unless `headers` says otherwise. */
  readonly body?: unknown;
}

/** One raw HTTP call (no client library in between). */
export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.session !== undefined) headers['x-session'] = options.session;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text === '' ? undefined : JSON.parse(text) };
}

/** Logs in by headers and returns the session id. */
export async function login(base: string, sender: TestSender): Promise<string> {
  const answer = await call(base, 'POST', '/api/v1/auth/login/api', {
    headers: { 'x-api-client-id': sender.apiClientId, 'x-api-client-secret': sender.apiClientSecret },
  });
  const sessionId = field(answer.json, 'sessionId');
  if (answer.status !== 200 || typeof sessionId !== 'string') throw new Error(`login failed: ${answer.status}`);
  return sessionId;
}

/** A property of a JSON answer, without casts. */
export function field(json: unknown, name: string): unknown {
  if (typeof json !== 'object' || json === null) return undefined;
  return Object.entries(json).find(([key]) => key === name)?.[1];
}

/** A tiny valid-looking PDF as base64, different for each `label`. */
export function pdfBase64(label: string): string {
  return Buffer.from(`%PDF-1.4\n% ${label}\n%%EOF\n`).toString('base64');
}

export function letterBody(overrides: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    title: 'Your November invoice',
    description: 'Please find the invoice attached.',
    genderTargeting: 'All',
    parts: [{ fileName: 'invoice.pdf', mimeType: 'application/pdf', base64Data: pdfBase64('invoice') }],
    ...overrides,
  };
}
