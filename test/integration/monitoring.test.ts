// The alert rules and the Grafana dashboard against what the gateway really exports: a run
// (a letter submitted, one rejected, one refused in the session, one failed on the API's
// InvalidCredentials) is scraped over HTTP, every metric the rules and panels name must be in
// that scrape, and `promtool test rules` evaluates each alert on series built from its label sets.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { createIntakeQueue } from '../../src/intake/queue.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { fixture, intakeIdOf, PROCESSING_ADDRESS, REPO, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { sendOnce } from '../helpers/smtp-client.js';
import { tenantSendersFile } from '../helpers/tenant-senders.js';

const RULES = resolve(REPO, 'deploy/prometheus/alerts.yml');
const DASHBOARD = resolve(REPO, 'deploy/grafana/letter-intake.json');
const PROMTOOL = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
if (!PROMTOOL) process.stdout.write('promtool not found (Debian package prometheus): the promtool checks are skipped\n');

interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** The samples of a Prometheus text exposition, without their values. */
function parseScrape(text: string): Series[] {
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((line) => {
      const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? '';
      const labelText = line.startsWith(`${name}{`) ? line.slice(name.length + 1, line.lastIndexOf('}')) : '';
      const labels = Object.fromEntries([...labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
      return { name, labels };
    });
}

/** Metric names (ours, process_*, nodejs_*) a PromQL expression reads. */
const metricNames = (expr: string): string[] =>
  [...expr.matchAll(/\b((?:letter_intake|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1] ?? '');
/** Label names an expression filters or groups on. */
const labelNames = (expr: string): string[] => [
  ...[...expr.matchAll(/[{,]\s*([a-zA-Z_]\w*)\s*(?:=~|!=|!~|=)/g)].map((m) => m[1] ?? ''),
  ...[...expr.matchAll(/\bby \(([^)]*)\)/g)].flatMap((m) => (m[1] ?? '').split(',').map((l) => l.trim())),
];
/** Labels Prometheus adds to every scraped series (not in the exposition itself). */
const TARGET_LABELS = ['job', 'instance', 'le'];

const rulesSchema = z.object({
  groups: z.array(
    z.object({ rules: z.array(z.object({ alert: z.string(), expr: z.string(), annotations: z.record(z.string(), z.string()) })) }),
  ),
});
const rules = rulesSchema.parse(parse(readFileSync(RULES, 'utf8'))).groups.flatMap((g) => g.rules);
const dashboardSchema = z.object({ panels: z.array(z.object({ title: z.string(), targets: z.array(z.object({ expr: z.string() })) })) });

let gateway: TestGateway;
let ops: OpsServer;
let scraped: Series[];
const prefix = randomPrefix();
const redis = connectTestRedis();

beforeAll(async () => {
  const queue = createIntakeQueue(redis, prefix);
  const metrics = createMetrics({ queue });
  // Acme has a limit: its use is exported per sender.
  const senders = tenantSendersFile({ acme: { limits: { messagesPerHour: 1000 } } });
  gateway = await startTestGateway({ worker: true, observer: metrics.observer, env: { REDIS_PREFIX: prefix, SENDERS_FILE: senders } });
  ops = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent' }),
    registry: metrics.registry,
    redis,
    queue,
    dashboard: { user: 'admin', password: undefined },
  });
  const sandbox = gateway.sandbox;
  if (sandbox === undefined) throw new Error('the gateway runs without its sandbox');
  // The first login is refused: that intake fails for an operator (InvalidCredentials).
  sandbox.store.injectFault({ status: 401, errorCode: 'InvalidCredentials', paths: '/api/v1/auth/login' });
  const send = async (file: string): Promise<string> => {
    const raw = fixture(file);
    const from = /^Return-Path: <([^>]*)>/m.exec(raw.toString('latin1'))?.[1] ?? 'letters@acme.example';
    return (await sendOnce(gateway.port, { from, to: [PROCESSING_ADDRESS], raw })).data?.text ?? '';
  };
  const failed = intakeIdOf(await send('dkim-pass-aligned.eml'));
  expect((await gateway.settled(failed)).state).toBe('failed');
  expect((await gateway.settled(intakeIdOf(await send('pdf-attachment.eml')))).state).toBe('submitted');
  // The API refuses the next draft as invalid: that intake is rejected (ApiRejected).
  sandbox.store.injectFault({ status: 400, errorCode: 'InvalidData', paths: '/api/v1/letters/draft' });
  expect((await gateway.settled(intakeIdOf(await send('pdf-with-inline-logo.eml')))).state).toBe('rejected');
  expect(await send('no-pdf.eml')).toMatch(/^550 5\.6\.0 NoPdfAttachment: /);
  expect(await send('spf-fail.eml')).toMatch(/^550/);
  scraped = parseScrape(await (await fetch(`${ops.url}/metrics`)).text());
}, 60_000);

afterAll(async () => {
  await ops.close();
  await gateway.close();
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

function assertExported(expr: string, where: string): void {
  const names = metricNames(expr);
  expect(names.length, where).toBeGreaterThan(0);
  for (const name of names) {
    const series = scraped.filter((s) => s.name === name);
    expect(series.length, `${where}: ${name} is not in the scrape`).toBeGreaterThan(0);
    const known = new Set([...TARGET_LABELS, ...series.flatMap((s) => Object.keys(s.labels))]);
    for (const label of labelNames(expr)) expect([...known], `${where}: ${name} has no label ${label}`).toContain(label);
  }
}

describe('alert rules', () => {
  it('read only metrics and labels the gateway exports', () => {
    expect(rules.map((r) => r.alert)).toHaveLength(7);
    for (const rule of rules.filter((r) => r.alert !== 'LetterIntakeDown')) assertExported(rule.expr, rule.alert);
  });

  it('each point to a section of the operating page that says what to do', () => {
    const page = readFileSync(resolve(REPO, 'docs/operating.md'), 'utf8');
    const anchors = new Set(
      [...page.matchAll(/^#+ (.+)$/gm)].map((m) =>
        (m[1] ?? '')
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    for (const rule of rules) {
      const [file, anchor] = (rule.annotations.runbook ?? '').split('#');
      expect(file, rule.alert).toBe('docs/operating.md');
      expect([...anchors], rule.alert).toContain(anchor);
    }
  });

  it.skipIf(!PROMTOOL)("pass promtool check rules, and the compose stack's Prometheus config loads them", () => {
    const run = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(run.stdout + run.stderr).toContain('SUCCESS: 7 rules found');
    expect(run.status).toBe(0);
    const config = spawnSync('promtool', ['check', 'config', resolve(REPO, 'deploy/prometheus/prometheus.yml')], { encoding: 'utf8' });
    expect(config.stdout + config.stderr).toContain('SUCCESS: 1 rule files found');
    expect(config.status).toBe(0);
  });

  it.skipIf(!PROMTOOL)('fire on series shaped like the scrape, and stay quiet on a healthy one (promtool test rules)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'letter-intake-rules-'));
    try {
      const file = join(dir, 'alerts.test.yml');
      writeFileSync(file, stringify(ruleTests()));
      const run = spawnSync('promtool', ['test', 'rules', file], { encoding: 'utf8' });
      expect(run.stdout + run.stderr).toContain('SUCCESS');
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Grafana dashboard', () => {
  it('is an import-format dashboard whose every panel reads metrics the gateway exports', () => {
    const dashboard: unknown = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
    expect(dashboard).toMatchObject({ uid: 'letter-intake', title: 'letter-intake', schemaVersion: expect.any(Number) });
    const { panels } = dashboardSchema.parse(dashboard);
    expect(panels.map((p) => p.title)).toEqual(
      expect.arrayContaining([
        'Intakes ended, by outcome',
        'SMTP replies, by code',
        'End-to-end latency (250 → letter)',
        'Queue depth, by state',
        'Sender API errors, by code',
        'Memory per process',
      ]),
    );
    for (const panel of panels) for (const target of panel.targets) assertExported(target.expr, panel.title);
  });
});

// ------------------------------------------------------------------ promtool test rules input
const TARGET = { job: 'letter-intake', instance: 'gateway:8080' };

/** The one scraped series with `name` and these label values (it must exist: that is the point). */
function scrapedSeries(name: string, labels: Readonly<Record<string, string>>): Series {
  const found = scraped.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found === undefined) throw new Error(`the scrape has no ${name} with ${JSON.stringify(labels)}`);
  return found;
}

function selector(series: Series, relabel: Readonly<Record<string, string>> = {}): string {
  const labels = { ...series.labels, ...relabel, ...TARGET };
  return `${series.name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;
}

function ruleTests(): unknown {
  const alertCredentials = scrapedSeries('letter_intake_operator_alerts_total', { errorCode: 'InvalidCredentials' });
  const failed = scrapedSeries('letter_intake_intakes_ended_total', { state: 'failed' });
  const waiting = scrapedSeries('letter_intake_queue_jobs', { state: 'waiting' });
  const buckets = scraped.filter((s) => s.name === 'letter_intake_end_to_end_seconds_bucket');
  const accepted = scrapedSeries('letter_intake_smtp_replies_total', { code: '250', command: 'DATA' });
  const refused = scrapedSeries('letter_intake_smtp_replies_total', { code: '550', command: 'DATA' });
  const senderUse = scrapedSeries('letter_intake_sender_limit_use_ratio', { limit: 'messagesPerHour' });
  expect(buckets.length).toBeGreaterThan(5);
  // Every observation between 5 and 10 seconds: the p99 is well over the 5 s threshold.
  const slowBuckets = buckets.map((b) => ({
    series: selector(b),
    values: Number(b.labels.le) >= 10 || b.labels.le === '+Inf' ? '0+10x40' : '0x40',
  }));
  const fastBuckets = buckets.map((b) => ({ series: selector(b), values: '0+10x40' }));
  const alert = (alertname: string, eval_time: string, exp_alerts: unknown[]) => ({ alertname, eval_time, exp_alerts });
  const runbook = (name: string) => `docs/operating.md#${name.toLowerCase()}`;
  return {
    rule_files: [RULES],
    evaluation_interval: '1m',
    tests: [
      {
        name: 'every alert fires on its trouble',
        interval: '1m',
        input_series: [
          { series: selector(alertCredentials), values: '0 0 0 1 1 1 1 1 1 1' },
          { series: selector(failed), values: '0 0 0 2 2 2 2 2 2 2' },
          { series: selector(waiting), values: '0+10x40' },
          ...slowBuckets,
          { series: `up{job="letter-intake",instance="gateway:8080"}`, values: '1 1 0x40' },
          { series: selector(accepted), values: '0+30x40' },
          { series: selector(refused, { code: '451' }), values: '0+6x40' },
          { series: selector(senderUse), values: '0.9x40' },
        ],
        alert_rule_test: [
          alert('LetterIntakeOperatorAlert', '5m', [
            {
              exp_labels: { severity: 'page', errorCode: 'InvalidCredentials' },
              exp_annotations: {
                summary: 'InvalidCredentials: an operator must act',
                runbook: runbook('LetterIntakeOperatorAlert'),
              },
            },
          ]),
          alert('LetterIntakeIntakesFailed', '5m', [
            {
              exp_labels: { severity: 'ticket', reason: failed.labels.reason ?? '' },
              exp_annotations: {
                summary: `Intakes ended failed (${failed.labels.reason ?? ''}); they wait for a replay`,
                runbook: runbook('LetterIntakeIntakesFailed'),
              },
            },
          ]),
          alert('LetterIntakeQueueGrowing', '25m', [
            {
              exp_labels: { severity: 'page', ...waiting.labels, ...TARGET },
              exp_annotations: {
                summary: 'The intake queue keeps growing: workers do not keep up',
                runbook: runbook('LetterIntakeQueueGrowing'),
              },
            },
          ]),
          alert('LetterIntakeEndToEndSlow', '25m', [
            {
              exp_labels: { severity: 'ticket' },
              exp_annotations: { summary: 'p99 from 250 to letter is over 5 s', runbook: runbook('LetterIntakeEndToEndSlow') },
            },
          ]),
          alert('LetterIntakeDown', '25m', [
            {
              exp_labels: { severity: 'page', ...TARGET },
              exp_annotations: { summary: 'gateway:8080 does not answer its scrape', runbook: runbook('LetterIntakeDown') },
            },
          ]),
          alert('LetterIntakeSenderNearLimit', '5m', [
            {
              exp_labels: { severity: 'ticket', sender: senderUse.labels.sender ?? '', limit: 'messagesPerHour' },
              exp_annotations: {
                summary: `Sender ${senderUse.labels.sender ?? ''} is near its messagesPerHour limit`,
                runbook: runbook('LetterIntakeSenderNearLimit'),
              },
            },
          ]),
          alert('LetterIntakeTemporaryFailures', '25m', [
            {
              exp_labels: { severity: 'page' },
              exp_annotations: {
                summary: 'Over 10% of messages are answered 451 (try later)',
                runbook: runbook('LetterIntakeTemporaryFailures'),
              },
            },
          ]),
        ],
      },
      {
        name: 'a healthy gateway raises nothing',
        interval: '1m',
        input_series: [
          { series: selector(alertCredentials), values: '0x40' },
          { series: selector(failed), values: '0x40' },
          { series: selector(waiting), values: '3x40' },
          ...fastBuckets,
          { series: `up{job="letter-intake",instance="gateway:8080"}`, values: '1x40' },
          { series: selector(accepted), values: '0+30x40' },
          { series: selector(refused), values: '0+1x40' },
          { series: selector(senderUse), values: '0.1x40' },
        ],
        alert_rule_test: rules.map((r) => alert(r.alert, '25m', [])),
      },
    ],
  };
}
