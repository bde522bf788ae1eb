// The Dockerfile and docker-compose.yml say what the design says: a slim Node 24 image running
// compiled JS as a non-root user, a durable Redis, real CLI commands, known variables only.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';

const REPO = resolve(import.meta.dirname, '../..');
const read = (file: string): string => readFileSync(resolve(REPO, file), 'utf8');

/** The variable names the config schema knows, read from src/config.ts. */
const CONFIG_VARIABLES = new Set([...read('src/config.ts').matchAll(/^ {2}([A-Z][A-Z0-9_]*): /gm)].map((m) => m[1]));
/** The `letter-intake` commands, read from the CLI's command table. */
const CLI_COMMANDS = new Set([...read('src/cli.ts').matchAll(/^ {2}'?([a-z][a-z-]*)'?: async \(\) =>/gm)].map((m) => m[1]));

// ---------------------------------------------------------------- Dockerfile
/** Instructions with line continuations joined, comments dropped. */
const instructions = read('Dockerfile')
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const stageStarts = instructions.flatMap((line, i) => (/^FROM\s/i.test(line) ? [i] : []));
const finalStage = instructions.slice(stageStarts.at(-1) ?? 0);
const find = (lines: readonly string[], keyword: string): string[] => lines.filter((l) => l.toUpperCase().startsWith(`${keyword} `));

describe('Dockerfile', () => {
  it('builds in several stages, each from a slim Node 24 image', () => {
    const froms = find(instructions, 'FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^FROM node:24(\.[\d.]+)?-slim(\s|$)/);
  });

  it('compiles in a build stage and installs production dependencies only in the final one', () => {
    const buildStage = instructions.slice(0, stageStarts.at(-1));
    expect(buildStage.some((l) => /^RUN .*npm ci\b/.test(l))).toBe(true);
    expect(buildStage.some((l) => /^RUN .*npm run build\b/.test(l))).toBe(true);
    const installs = finalStage.filter((l) => /npm (ci|install)\b/.test(l));
    expect(installs.length).toBe(1);
    expect(installs[0]).toContain('npm ci --omit=dev');
    expect(finalStage.some((l) => /^COPY --from=\w+ \S*dist/.test(l))).toBe(true);
  });

  it('runs as a user other than root', () => {
    const users = find(finalStage, 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^USER\s+(root|0)(:|\s|$)/);
  });

  it('checks its health on /healthz with node, not curl', () => {
    const [check] = find(finalStage, 'HEALTHCHECK');
    expect(check).toContain('/healthz');
    expect(check).toMatch(/"node"/);
    expect(check).not.toContain('curl');
  });

  it('exposes SMTP and HTTP, and runs the compiled CLI with `start` by default', () => {
    const exposed = find(finalStage, 'EXPOSE').flatMap((l) => l.split(/\s+/).slice(1));
    expect(exposed).toEqual(expect.arrayContaining(['2525', '8080']));
    expect(find(finalStage, 'ENTRYPOINT')).toEqual(['ENTRYPOINT ["node", "dist/cli.js"]']);
    const cmd = z.array(z.string()).parse(JSON.parse(find(finalStage, 'CMD')[0]?.slice(4) ?? 'null'));
    expect(cmd).toEqual(['start']);
  });
});

// ---------------------------------------------------------------- docker-compose.yml
const composeText = read('docker-compose.yml');
const service = z.object({
  image: z.string().optional(),
  profiles: z.array(z.string()).optional(),
  command: z.union([z.string(), z.array(z.string())]).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  ports: z.array(z.string()).optional(),
  volumes: z.array(z.string()).optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
  healthcheck: z.object({ test: z.array(z.string()) }).optional(),
});
const compose = z.object({ services: z.record(z.string(), service), volumes: z.record(z.string(), z.unknown()) }).parse(parse(composeText));
const services = Object.entries(compose.services);
const commandOf = (s: z.infer<typeof service>): string[] => (typeof s.command === 'string' ? s.command.split(/\s+/) : (s.command ?? []));

describe('docker-compose.yml', () => {
  it('runs Redis durably: append-only, fsync on every write, no eviction, data on a named volume', () => {
    const redis = compose.services.redis;
    const args = commandOf(redis ?? {}).join(' ');
    expect(args).toMatch(/--appendonly yes\b/);
    expect(args).toMatch(/--appendfsync always\b/);
    expect(args).toMatch(/--maxmemory-policy noeviction\b/);
    const volume = redis?.volumes?.find((v) => v.endsWith(':/data'));
    expect(volume?.split(':')[0]).toBeOneOf(Object.keys(compose.volumes));
  });

  it('gives every service a health check', () => {
    for (const [name, s] of services) expect(s.healthcheck?.test.length, name).toBeGreaterThan(0);
  });

  it('starts the gateway only once Redis is healthy, and publishes SMTP on 25 and HTTP on 8080', () => {
    const gateway = compose.services.gateway;
    expect(gateway?.depends_on?.redis?.condition).toBe('service_healthy');
    expect(gateway?.ports).toEqual(expect.arrayContaining(['25:2525', '8080:8080']));
  });

  it('runs only real letter-intake commands in the gateway image', () => {
    const ours = services.filter(([, s]) => s.image === compose.services.gateway?.image);
    expect(ours.map(([name]) => name)).toEqual(expect.arrayContaining(['gateway', 'sandbox-api']));
    expect(CLI_COMMANDS.size).toBeGreaterThanOrEqual(8);
    for (const [name, s] of ours) expect(commandOf(s)[0], name).toBeOneOf([...CLI_COMMANDS]);
  });

  it('gives the gateway an external Redis and Sender API, so `start` embeds nothing', () => {
    const env = compose.services.gateway?.environment ?? {};
    expect(env.REDIS_URL).toMatch(/^redis:\/\/redis:6379/);
    expect(env.SENDER_API_URL).toMatch(/^https?:\/\//);
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['INBOUND_ADDRESSES', 'SENDERS_FILE', 'DASHBOARD_PASSWORD']));
  });

  it('uses only variables the config schema knows, in environments and in interpolations', () => {
    expect(CONFIG_VARIABLES.size).toBeGreaterThan(20);
    const ours = services.filter(([, s]) => s.image === compose.services.gateway?.image);
    const named = ours.flatMap(([, s]) => Object.keys(s.environment ?? {}));
    const interpolated = [...composeText.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const name of [...named, ...interpolated]) expect(CONFIG_VARIABLES, name).toContain(name);
  });
});

describe('docker-compose.yml monitoring profile', () => {
  const inProfile = services.filter(([, s]) => s.profiles?.includes('monitoring')).map(([name]) => name);
  const mounts = (name: string): string[] => (compose.services[name]?.volumes ?? []).map((v) => v.split(':')[0] ?? '');

  it('adds Prometheus and Grafana only under the monitoring profile', () => {
    expect(inProfile.sort()).toEqual(['grafana', 'prometheus']);
    for (const [name, s] of services) if (!inProfile.includes(name)) expect(s.profiles, name).toBeUndefined();
  });

  it('gives Prometheus the scrape config and the alert rules, and Grafana its provisioning and the dashboard, from files in the repository', () => {
    expect(mounts('prometheus')).toEqual(expect.arrayContaining(['./deploy/prometheus/prometheus.yml', './deploy/prometheus/alerts.yml']));
    expect(mounts('grafana')).toEqual(
      expect.arrayContaining([
        './deploy/grafana/provisioning/datasources',
        './deploy/grafana/provisioning/dashboards',
        './deploy/grafana/letter-intake.json',
      ]),
    );
    for (const path of [...mounts('prometheus'), ...mounts('grafana')].filter((p) => p.startsWith('./'))) {
      expect(existsSync(resolve(REPO, path)), path).toBe(true);
    }
  });

  it('points the provisioned dashboards at the folder the dashboard file is mounted in', () => {
    const provider = z
      .object({ providers: z.array(z.object({ options: z.object({ path: z.string() }) })) })
      .parse(parse(read('deploy/grafana/provisioning/dashboards/letter-intake.yml')));
    const dashboardMount = (compose.services.grafana?.volumes ?? []).find((v) => v.startsWith('./deploy/grafana/letter-intake.json:'));
    expect(dashboardMount?.split(':')[1]).toBe(`${provider.providers[0]?.options.path}/letter-intake.json`);
  });
});
