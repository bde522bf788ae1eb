// The image and the compose stack, run for real (docs/deploying.md): the image builds from the
// Dockerfile as written and holds only what it should; `docker-compose up` serves the demo
// letter sent from the host through the published SMTP port; the gateway survives a restart,
// stops cleanly within its grace period, and passes `doctor`; Prometheus loads the rules,
// scrapes the gateway and answers every dashboard query.
//
// `npm run test:container`. Without a Docker engine that can be started here the suite skips
// with one line, unless CONTAINER_REQUIRED=1 (CI) makes that a failure. The base images
// (node:24-slim, redis:7) must be present or pullable; PROMETHEUS_IMAGE names a Prometheus
// image, else test/container/prometheus-stand-in.sh builds one from Debian's package.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { signedLetter } from '../helpers/signed-letter.js';
import { ComposeProject, findEngine, run, waitFor } from './docker.js';

const REPO = resolve(import.meta.dirname, '../..');
const IMAGE = 'letter-intake:local';
const PROJECT = 'letter-intake-container-test';
const DASHBOARD_PASSWORD = `container-${randomUUID()}`;
const required = process.env.CONTAINER_REQUIRED === '1';

const engine = await findEngine();
if (!engine.ok && !required) process.stdout.write(`container suite skipped: ${engine.reason}\n`);

/** `count` distinct ports nothing on this machine listens on right now (the kernel's picks, all held until each is known). */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(servers.map((server) => new Promise<void>((ok) => server.listen(0, '0.0.0.0', ok))));
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise<void>((ok) => server.close(() => ok()))));
  return ports;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const say = (line: string): void => {
  process.stdout.write(`[container] ${line}\n`);
};

it.runIf(!engine.ok && required)('finds a Docker engine (CONTAINER_REQUIRED=1)', () => {
  expect.fail(engine.ok ? 'unreachable' : engine.reason);
});

describe.skipIf(!engine.ok)('the container image and compose stack', () => {
  const ports = { smtp: 0, http: 0, sandbox: 0, prometheus: 0 };
  let project: ComposeProject;
  const work = mkdtempSync(join(tmpdir(), 'letter-intake-container-'));
  const intakes: string[] = [];

  beforeAll(async () => {
    [ports.smtp = 0, ports.http = 0, ports.sandbox = 0, ports.prometheus = 0] = await freePorts(4);
    const prometheusImage = await prometheusImageToUse();
    project = new ComposeProject(PROJECT, REPO, {
      ...withoutProjectVariables(process.env),
      DOCKER_BUILDKIT: '0',
      COMPOSE_DOCKER_CLI_BUILD: '0',
      SMTP_PUBLISH_PORT: String(ports.smtp),
      OPS_HTTP_PUBLISH_PORT: String(ports.http),
      SANDBOX_PUBLISH_PORT: String(ports.sandbox),
      PROMETHEUS_PUBLISH_PORT: String(ports.prometheus),
      PROMETHEUS_IMAGE: prometheusImage,
      DASHBOARD_PASSWORD,
    });
    say(
      `engine ${engine.ok && engine.started ? 'started here' : 'running'}; ports smtp ${ports.smtp}, http ${ports.http}, sandbox ${ports.sandbox}, prometheus ${ports.prometheus}; prometheus image ${prometheusImage}`,
    );
    await project.compose(['--profile', 'monitoring', 'down', '-v', '--remove-orphans']);
  }, 600_000);

  afterAll(async () => {
    if (project === undefined) return;
    const logs = await project.compose(['logs', '--no-color', '--tail', '40', 'gateway']);
    writeFileSync(join(work, 'gateway.log'), logs.stdout);
    await project.compose(['--profile', 'monitoring', 'down', '-v', '--remove-orphans']);
  }, 300_000);

  it('builds the image from the Dockerfile as written, with the classic builder', async () => {
    const started = Date.now();
    const build = await project.docker(['build', '-t', IMAGE, '.'], 900_000);
    const took = Date.now() - started;
    expect(build.stderr.replace(/DEPRECATED[^\n]*\n(\s+[^\n]*\n)*/g, '').trim(), build.stdout.slice(-2000)).not.toMatch(/error/i);
    expect(build.code, build.stderr.slice(-2000)).toBe(0);
    const size = Number((await project.docker(['image', 'inspect', '-f', '{{.Size}}', IMAGE])).stdout.trim());
    say(`build: ${seconds(took)} (layers cached where the inputs did not change); image ${IMAGE} ${(size / 1e6).toFixed(0)} MB`);
    expect(size).toBeGreaterThan(0);
  });

  it('holds in /app only dist/ (with its Lua scripts), production node_modules, package files and patches/', async () => {
    const listing = await project.docker([
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'ls -A /app; echo ---; find /app -path /app/node_modules -prune -o -type f -print',
    ]);
    expect(listing.code, listing.stderr).toBe(0);
    const [top = '', files = ''] = listing.stdout.split('---\n').map((part) => part.trim());
    expect(top.split('\n').sort()).toEqual(['dist', 'node_modules', 'package-lock.json', 'package.json', 'patches']);
    // What npm ci --omit=dev installs: the lock's entries not marked dev (a dev dependency that a
    // production one also needs, like libbase64, is not marked; typescript, valibot's optional
    // peer, is `devOptional` and npm installs it too).
    const lock = z
      .object({
        packages: z.record(
          z.string(),
          z.object({ dev: z.boolean().optional(), optional: z.boolean().optional(), devOptional: z.boolean().optional() }),
        ),
      })
      .parse(JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')));
    const topLevel = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1];
      const always = entry.dev !== true && entry.optional !== true && entry.devOptional !== true;
      return name === undefined ? [] : [{ name, dev: entry.dev === true, always }];
    });
    const installed = await project.docker([
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'cd /app/node_modules && ls -d * @*/* 2>/dev/null',
    ]);
    const names = new Set(installed.stdout.split('\n').filter((n) => n !== '' && !n.startsWith('.')));
    expect(names.size).toBeGreaterThan(50);
    const devOnly = topLevel.filter((p) => p.dev).map((p) => p.name);
    expect(devOnly).toEqual(expect.arrayContaining(['vitest', '@biomejs/biome', 'node', 's3rver', 'playwright-core', 'tsx']));
    expect(devOnly.filter((name) => names.has(name))).toEqual([]);
    expect(topLevel.filter((p) => p.always && !names.has(p.name)).map((p) => p.name)).toEqual([]);
    const outside = files
      .split('\n')
      .filter(
        (file) =>
          !/^\/app\/(dist\/.+\.js(\.map)?|dist\/.+\.d\.ts|dist\/.+\/scripts\/[^/]+\.lua|package(-lock)?\.json|patches\/[^/]+\.patch)$/.test(
            file,
          ),
      );
    expect(outside).toEqual([]);
    expect(files).toContain('/app/dist/cli.js');
    // The store's Lua scripts are files the build copies beside their modules.
    expect(files).toContain('/app/dist/intake/scripts/create-6.lua');
    expect(files).toContain('/app/dist/notices/scripts/move-notice-1.lua');
    expect(files).toContain('/app/dist/pdf/inspector-thread.js');
    say(`/app: ${top.split('\n').join(', ')}; ${files.split('\n').length} files outside node_modules`);
  });

  it('comes up, and takes the demo letter sent from the host to the published SMTP port', async () => {
    const started = Date.now();
    const up = await project.compose(['--profile', 'monitoring', 'up', '-d', '--no-build']);
    expect(up.code, up.stderr).toBe(0);
    say(`up -d returned after ${seconds(Date.now() - started)}`);
    const reply = await waitFor('a 250 for the demo letter from the host', 120_000, async () => {
      const sent = await sendFromHost(join(REPO, 'fixtures/eml/dkim-pass-aligned.eml'));
      return sent.startsWith('250') ? sent : undefined;
    });
    const firstReply = Date.now() - started;
    say(`demo letter from the host: ${reply} (${seconds(firstReply)} after up)`);
    intakes.push(intakeIdOf(reply));
    await project.waitHealthy('gateway', 60_000);
    say(`gateway healthy ${seconds(Date.now() - started)} after up`);
  });

  it('turns it into a PendingApproval letter, shown on its intake page', async () => {
    const [id = ''] = intakes;
    const intake = await waitFor('the demo intake submitted', 60_000, async () => {
      const record = await intakeRecord(id);
      return record.state === 'submitted' ? record : undefined;
    });
    const letters = await sandboxLetters();
    expect(letters.find((l) => l.id === intake.letterId)?.status).toBe('PendingApproval');
    const page = await fetch(`http://127.0.0.1:${ports.http}/admin/intakes/${id}`, { headers: { ...basicAuth(), accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(id);
    expect(html).toContain(intake.letterId);
    say(`intake ${id}: submitted, letter ${intake.letterId} PendingApproval; intake page ${page.status}`);
  });

  it('serves a second letter from the host after the gateway container restarts', async () => {
    const restarted = await project.compose(['restart', 'gateway']);
    expect(restarted.code, restarted.stderr).toBe(0);
    const file = join(work, 'second-letter.eml');
    writeFileSync(file, await signedLetter({ title: 'Second letter, after a restart' }));
    const reply = await waitFor('a 250 after the restart', 120_000, async () => {
      const sent = await sendFromHost(file);
      return sent.startsWith('250') ? sent : undefined;
    });
    const id = intakeIdOf(reply);
    intakes.push(id);
    const intake = await waitFor('the second intake submitted', 60_000, async () => {
      const record = await intakeRecord(id);
      return record.state === 'submitted' ? record : undefined;
    });
    expect((await sandboxLetters()).find((l) => l.id === intake.letterId)?.status).toBe('PendingApproval');
    expect((await intakeRecord(intakes[0] ?? '')).state).toBe('submitted');
    say(`after restart: ${reply}; letter ${intake.letterId} PendingApproval; the first intake is still on record`);
  });

  it('answers a letter the Sender API refuses with a rejected intake', async () => {
    const fault = await fetch(`http://127.0.0.1:${ports.sandbox}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 400, errorCode: 'InvalidData', paths: '/api/v1/letters/draft' }),
    });
    expect(fault.status).toBe(201);
    const file = join(work, 'refused-letter.eml');
    writeFileSync(file, await signedLetter({ title: 'A letter the API refuses' }));
    const reply = await sendFromHost(file);
    expect(reply).toMatch(/^250 /);
    const id = intakeIdOf(reply);
    const intake = await waitFor('the refused intake ended', 60_000, async () => {
      const record = await intakeRecord(id);
      return record.state === 'rejected' ? record : undefined;
    });
    say(`refused by the API: intake ${id} ${intake.state}`);
  });

  it('runs doctor inside the gateway container, every check passing', async () => {
    const doctor = await project.compose([
      'exec',
      '-T',
      '-e',
      'SENDER_API_URL=http://127.0.0.1:8090',
      'gateway',
      'node',
      'dist/cli.js',
      'doctor',
    ]);
    say(`doctor (exit ${doctor.code}):\n${doctor.stdout.trim()}`);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
  });

  it('has Prometheus load every alert rule healthy and scrape the gateway', async () => {
    const rules = await waitFor(
      'every rule evaluated',
      90_000,
      async () => {
        const all = await prometheusRules();
        return all.length > 0 && all.every((r) => r.health !== 'unknown') ? all : undefined;
      },
      2000,
    );
    expect(rules.filter((r) => r.health !== 'ok')).toEqual([]);
    expect(rules.map((r) => r.name)).toEqual(expect.arrayContaining(['LetterIntakeOperatorAlert', 'LetterIntakeDown']));
    const up = await waitFor(
      'up == 1 for the gateway',
      60_000,
      async () => {
        const answer = await promQuery('up{job="letter-intake"}');
        return answer.result.length === 1 && answer.result[0]?.value[1] === '1' ? answer : undefined;
      },
      2000,
    );
    say(
      `prometheus: ${rules.length} rules, all health ok (${rules.map((r) => r.name).join(', ')}); up{job="letter-intake"} = ${up.result[0]?.value[1]}`,
    );
  });

  it('answers every Grafana panel query, variables substituted, with data', async () => {
    const dashboard = z
      .object({ panels: z.array(z.object({ title: z.string(), targets: z.array(z.object({ expr: z.string() })) })) })
      .parse(JSON.parse(readFileSync(join(REPO, 'deploy/grafana/letter-intake.json'), 'utf8')));
    const queries = dashboard.panels.flatMap((panel) =>
      panel.targets.map((target) => ({ panel: panel.title, expr: grafanaVariables(target.expr) })),
    );
    expect(queries.length).toBeGreaterThan(5);
    for (const query of queries) expect(query.expr, query.panel).not.toContain('$');
    const empty = async (): Promise<string[]> => {
      const answers = await Promise.all(queries.map(async (q) => ({ q, answer: await promQuery(q.expr) })));
      return answers.filter((a) => a.answer.result.length === 0).map((a) => `${a.q.panel}: ${a.q.expr}`);
    };
    // Rates need two scrapes (15 s apart) after the letters.
    const answered = await waitFor(
      'every panel query answered',
      90_000,
      async () => ((await empty()).length === 0 ? true : undefined),
      3000,
    ).catch(() => false);
    expect(answered ? [] : await empty()).toEqual([]);
    say(`grafana: ${queries.length} panel queries, each parsed and answered with data`);
  });

  it('stops the gateway with exit code 0 within its stop grace period', async () => {
    const started = Date.now();
    const stop = await project.compose(['stop', 'gateway']);
    const took = Date.now() - started;
    expect(stop.code, stop.stderr).toBe(0);
    const state = await project.state('gateway');
    say(`docker-compose stop gateway: ${seconds(took)}, exit code ${state.exitCode}`);
    expect(state.status).toBe('exited');
    expect(state.exitCode).toBe(0);
    const logs = await project.compose(['logs', '--no-color', '--tail', '20', 'gateway']);
    expect(logs.stdout).toContain('shutdown.done');
    expect(took).toBeLessThan(80_000);
  });

  // ------------------------------------------------------------------ helpers
  async function sendFromHost(file: string): Promise<string> {
    const sent = await run(
      process.execPath,
      [join(REPO, 'dist/cli.js'), 'send', file, '--host', '127.0.0.1', '--port', String(ports.smtp)],
      {
        env: withoutProjectVariables(process.env),
        timeoutMs: 60_000,
      },
    );
    return (sent.stdout.trim() || sent.stderr.trim()).split('\n').at(-1) ?? '';
  }

  function basicAuth(): Record<string, string> {
    return { authorization: `Basic ${Buffer.from(`admin:${DASHBOARD_PASSWORD}`).toString('base64')}` };
  }

  async function intakeRecord(id: string): Promise<{ state: string; letterId: string }> {
    const answer = await fetch(`http://127.0.0.1:${ports.http}/admin/intakes/${id}`, {
      headers: { ...basicAuth(), accept: 'application/json' },
    });
    const body = z.object({ intake: z.object({ state: z.string(), letterId: z.string().default('') }) }).parse(await answer.json());
    return body.intake;
  }

  async function sandboxLetters(): Promise<Array<{ id: string; status: string }>> {
    const answer = await fetch(`http://127.0.0.1:${ports.sandbox}/sandbox/letters`);
    return z.object({ items: z.array(z.object({ id: z.string(), status: z.string() })) }).parse(await answer.json()).items;
  }

  async function prometheusRules(): Promise<Array<{ name: string; health: string }>> {
    const answer = await fetch(`http://127.0.0.1:${ports.prometheus}/api/v1/rules`);
    const body = z
      .object({ data: z.object({ groups: z.array(z.object({ rules: z.array(z.object({ name: z.string(), health: z.string() })) })) }) })
      .parse(await answer.json());
    return body.data.groups.flatMap((g) => g.rules.map((r) => ({ name: r.name, health: r.health })));
  }

  async function promQuery(expr: string): Promise<{ result: Array<{ value: [number, string] }> }> {
    const answer = await fetch(`http://127.0.0.1:${ports.prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = z
      .object({ status: z.literal('success'), data: z.object({ result: z.array(z.object({ value: z.tuple([z.number(), z.string()]) })) }) })
      .safeParse(await answer.json());
    if (!body.success) throw new Error(`${expr}: ${answer.status} ${body.error.message}`);
    return body.data.data;
  }
});

/** The reply's intake id: "250 2.0.0 queued as in…". */
function intakeIdOf(reply: string): string {
  const id = /queued as (\S+)/.exec(reply)?.[1];
  if (id === undefined) throw new Error(`no intake id in ${reply}`);
  return id;
}

/**
 * Grafana's variables as it would substitute them for this stack: `$__rate_interval` is at least
 * four scrape intervals (15 s), `$__interval` and `$__range` a dashboard's window.
 */
function grafanaVariables(expr: string): string {
  return expr.replaceAll('$__rate_interval', '1m').replaceAll('$__interval', '15s').replaceAll('$__range', '1h');
}

/** The host's environment without the variables that would change what the stack or the CLI read. */
function withoutProjectVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  const config = new Set([...readFileSync(join(REPO, 'src/config.ts'), 'utf8').matchAll(/^ {2}([A-Z][A-Z0-9_]*): /gm)].map((m) => m[1]));
  for (const [name, value] of Object.entries(env)) if (!config.has(name) && !name.startsWith('COMPOSE_')) kept[name] = value;
  return kept;
}

/** PROMETHEUS_IMAGE when given; the official image when present; else the Debian stand-in. */
async function prometheusImageToUse(): Promise<string> {
  const given = process.env.PROMETHEUS_IMAGE;
  if (given !== undefined && given !== '') return given;
  if ((await run('docker', ['image', 'inspect', 'prom/prometheus:v2.53.2'])).code === 0) return 'prom/prometheus:v2.53.2';
  const built = await run(join(REPO, 'test/container/prometheus-stand-in.sh'), [], { timeoutMs: 600_000 });
  if (built.code !== 0) throw new Error(`no Prometheus image: ${built.stdout}${built.stderr}`);
  say(built.stdout.trim());
  return 'local/prometheus:debian';
}
