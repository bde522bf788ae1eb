// The Dockerfile and docker-compose.yml say what the design says: a slim Node 24 image running
// compiled JS as a non-root user, a durable Redis, real CLI commands, known variables only.
import { existsSync, readFileSync } from 'node:fs';
import { BlockList } from 'node:net';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { loadConfig } from '../../src/config.js';
import { shutdownBoundMs } from '../../src/runtime/roles.js';

const REPO = resolve(import.meta.dirname, '../..');
const read = (file: string): string => readFileSync(resolve(REPO, file), 'utf8');

/** The variable names the config schema knows, read from src/config.ts. */
const CONFIG_VARIABLES = new Set([...read('src/config.ts').matchAll(/^ {2}([A-Z][A-Z0-9_]*): /gm)].map((m) => m[1]));
/** The `letter-intake` commands, read from the CLI's command table. */
const CLI_COMMANDS = new Set([...read('src/cli.ts').matchAll(/^ {2}'?([a-z][a-z-]*)'?: async \(\) =>/gm)].map((m) => m[1]));
/** Variables compose itself reads (host ports, a replacement image), never passed to the program. */
const COMPOSE_ONLY_VARIABLES = new Set([
  'SMTP_PUBLISH_PORT',
  'OPS_HTTP_PUBLISH_PORT',
  'SANDBOX_PUBLISH_PORT',
  'PROMETHEUS_PUBLISH_PORT',
  'GRAFANA_PUBLISH_PORT',
  'PROMETHEUS_IMAGE',
]);

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
  stop_grace_period: z.string().optional(),
  ports: z.array(z.string()).optional(),
  volumes: z.array(z.string()).optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
  healthcheck: z.object({ test: z.array(z.string()) }).optional(),
});
const network = z.object({ ipam: z.object({ config: z.array(z.object({ subnet: z.string(), gateway: z.string() })) }) });
const compose = z
  .object({
    services: z.record(z.string(), service),
    volumes: z.record(z.string(), z.unknown()),
    networks: z.object({ default: network }),
  })
  .parse(parse(composeText));
const services = Object.entries(compose.services);
const commandOf = (s: z.infer<typeof service>): string[] => (typeof s.command === 'string' ? s.command.split(/\s+/) : (s.command ?? []));
/** A compose value with every `${NAME:-default}` read as its default (no variables set). */
const withDefaults = (value: string): string =>
  value.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*))?\}/g, (_m, fallback: string | undefined) => fallback ?? '');
/** "80s", "1m30s" → milliseconds (compose durations, as used here). */
function durationMs(text: string): number {
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h)/g)];
  expect(parts.map((p) => p[0]).join('')).toBe(text);
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * (unit[u ?? ''] ?? Number.NaN), 0);
}

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

  it('starts the gateway only once Redis is healthy, and publishes SMTP on SMTP_PUBLISH_PORT (25) and HTTP on OPS_HTTP_PUBLISH_PORT (8080)', () => {
    const gateway = compose.services.gateway;
    expect(gateway?.depends_on?.redis?.condition).toBe('service_healthy');
    const ports = gateway?.ports ?? [];
    expect(ports.map(withDefaults)).toEqual(expect.arrayContaining(['25:2525', '8080:8080']));
    expect(ports.find((p) => p.endsWith(':2525'))).toMatch(/^\$\{SMTP_PUBLISH_PORT:-25\}:2525$/);
    expect(ports.find((p) => p.endsWith(':8080'))).toMatch(/^\$\{OPS_HTTP_PUBLISH_PORT:-8080\}:8080$/);
  });

  it('runs only real letter-intake commands in the gateway image', () => {
    const ours = services.filter(([, s]) => s.image === compose.services.gateway?.image);
    expect(ours.map(([name]) => name)).toEqual(['gateway']);
    expect(CLI_COMMANDS.size).toBeGreaterThanOrEqual(8);
    for (const [name, s] of ours) expect(commandOf(s)[0], name).toBeOneOf([...CLI_COMMANDS]);
  });

  it('gives the gateway an external Redis and embeds the sandbox, published on the host loopback only', () => {
    const gateway = compose.services.gateway;
    const env = gateway?.environment ?? {};
    expect(env.REDIS_URL).toMatch(/^redis:\/\/redis:6379/);
    expect(env.SENDER_API_URL).toBeUndefined();
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['INBOUND_ADDRESSES', 'SENDERS_FILE', 'DASHBOARD_PASSWORD']));
    const sandboxPort = env.SANDBOX_PORT ?? '';
    const published = (gateway?.ports ?? []).filter((p) => p.endsWith(`:${sandboxPort}`));
    expect(published.map(withDefaults)).toEqual(['127.0.0.1:8090:8090']);
    expect(published[0]).toContain('SANDBOX_PUBLISH_PORT');
  });

  it('mounts the sender directory and the DNS zone from the host, read-only', () => {
    const env = compose.services.gateway?.environment ?? {};
    const mounts = (compose.services.gateway?.volumes ?? []).map(withDefaults);
    for (const inContainer of [env.SENDERS_FILE, env.DNS_ZONE_FILE]) {
      const mount = mounts.find((m) => m.split(':')[1] === inContainer);
      expect(mount, inContainer).toMatch(/^\.\/.+:ro$/);
      expect(existsSync(resolve(REPO, mount?.split(':')[0] ?? '')), mount).toBe(true);
    }
  });

  it('gives the gateway a stop grace period longer than its own shutdown bound (SMTP and worker close timeouts plus 10 s), with 5 s to spare', () => {
    const gateway = compose.services.gateway;
    const env = Object.fromEntries(Object.entries(gateway?.environment ?? {}).map(([k, v]) => [k, withDefaults(v)]));
    const config = loadConfig(env);
    const grace = durationMs(gateway?.stop_grace_period ?? '');
    expect(shutdownBoundMs(config)).toBe(config.smtp.closeTimeoutMs + config.worker.closeTimeoutMs + 10_000);
    expect(grace).toBeGreaterThanOrEqual(shutdownBoundMs(config) + 5000);
  });

  it('uses only variables the config schema knows, in environments and in interpolations, besides the publish ports and image', () => {
    expect(CONFIG_VARIABLES.size).toBeGreaterThan(20);
    const ours = services.filter(([, s]) => s.image === compose.services.gateway?.image);
    const named = ours.flatMap(([, s]) => Object.keys(s.environment ?? {}));
    const interpolated = [...composeText.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]));
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(CONFIG_VARIABLES, name).toContain(name);
    for (const name of interpolated) expect(CONFIG_VARIABLES.has(name) || COMPOSE_ONLY_VARIABLES.has(name), name).toBe(true);
  });
});

describe('the demo zone (deploy/demo/zone.json)', () => {
  const mx = z.object({ exchange: z.string(), priority: z.number() });
  const zoneRecords = z.record(z.string(), z.record(z.string(), z.union([z.string(), z.array(z.union([z.string(), mx]))])));
  const demoZone = zoneRecords.parse(JSON.parse(read('deploy/demo/zone.json')));
  const fixtureZone = zoneRecords.parse(JSON.parse(read('fixtures/zone.json')));
  const [subnet] = compose.networks.default.ipam.config;

  it('gives the compose network one fixed IPv4 subnet whose gateway lies inside it', () => {
    expect(compose.networks.default.ipam.config).toHaveLength(1);
    const [network, prefix] = (subnet?.subnet ?? '').split('/');
    expect(Number(prefix)).toBeGreaterThanOrEqual(16);
    const block = new BlockList();
    block.addSubnet(network ?? '', Number(prefix), 'ipv4');
    expect(block.check(subnet?.gateway ?? '', 'ipv4')).toBe(true);
  });

  it("adds exactly the network's gateway address to the fixture SPF for acme.example, nothing wider", () => {
    const [fixtureSpf = ''] = [fixtureZone['acme.example']?.TXT].flat().filter((v) => typeof v === 'string');
    const demoSpf = [demoZone['acme.example']?.TXT].flat();
    expect(fixtureSpf).toMatch(/ -all$/);
    expect(demoSpf).toEqual([fixtureSpf.replace(/ -all$/, ` ip4:${subnet?.gateway} -all`)]);
  });

  it("points the processing domain's MX at the gateway's SMTP_HOSTNAME", () => {
    const env = compose.services.gateway?.environment ?? {};
    const [inbound = ''] = withDefaults(env.INBOUND_ADDRESSES ?? '').split(',');
    const domain = inbound.split('@')[1] ?? '';
    expect(demoZone[domain]?.MX).toEqual([{ exchange: withDefaults(env.SMTP_HOSTNAME ?? ''), priority: 10 }]);
  });

  it("publishes the fixture senders' DKIM keys unchanged", () => {
    const names = Object.keys(demoZone).filter((name) => !['acme.example', 'intake.example'].includes(name));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(demoZone[name], name).toEqual(fixtureZone[name]);
  });
});

describe('docker-compose.yml monitoring profile', () => {
  const inProfile = services.filter(([, s]) => s.profiles?.includes('monitoring')).map(([name]) => name);
  const mounts = (name: string): string[] => (compose.services[name]?.volumes ?? []).map((v) => v.split(':')[0] ?? '');

  it('adds Prometheus under the monitoring profile and Grafana under a profile of its own', () => {
    expect(inProfile).toEqual(['prometheus']);
    expect(compose.services.grafana?.profiles).toEqual(['grafana']);
    for (const [name, s] of services) if (!['prometheus', 'grafana'].includes(name)) expect(s.profiles, name).toBeUndefined();
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
