// `letter-intake doctor`: gathers the facts of a deployment from its configuration (Redis, the
// raw store, the sender directory, the Sender API, DNS, TLS) and judges each with the pure
// checks beside this file. Every wait is bounded; nothing is written but a probe that expires.
import { readFileSync } from 'node:fs';
import { Cluster } from 'ioredis';
import { withTimeout } from '../bounded.js';
import type { Config } from '../config.js';
import type { Env } from '../config-env.js';
import { unknownVariablesIn } from '../config-unknown.js';
import type { Logger } from '../log.js';
import type { DnsResolver } from '../net/resolver.js';
import { openRedis, type RedisClient } from '../redis/connections.js';
import { prefixServer, prefixShard } from '../redis/prefix-shard.js';
import { describeTopology, TOPOLOGY_VARIABLES } from '../redis/topology.js';
import { createSenderApiClient } from '../sender-api/client.js';
import { addressesInUse } from '../senders/addresses-in-use.js';
import { parseSenderDirectory, type Sender, type SenderDirectory } from '../senders/directory.js';
import { secretVariablesNamedIn } from '../senders/secret-variables.js';
import { settingsLine } from '../senders/settings-text.js';
import { judgeApiTransport, judgeLogin, judgeReachable, type LoginOutcome } from './api-checks.js';
import { checkClamd } from './clamd-checks.js';
import { judgeDirectory, parseRawDirectory } from './directory-checks.js';
import { judgeDkimKey, judgeMx, judgeSpf, noRecentSelectors } from './dns-checks.js';
import { lookup } from './dns-lookup.js';
import { judgeMtaSts } from './mta-sts-checks.js';
import { checkRawStore, type RawStoreProbe, redisRawStoreProbe } from './raw-store-checks.js';
import { recentDkimSelectors } from './recent-selectors.js';
import { judgeRedis, judgeShard } from './redis-checks.js';
import { readRedisFacts } from './redis-facts.js';
import { judgeReplication, judgeSentinels } from './replication-checks.js';
import { askSentinels, readReplicationFacts } from './replication-facts.js';
import { type CheckResult, fail, ok, warn } from './result.js';
import { judgeTls, type TlsMaterial } from './tls-checks.js';
import { judgeVariables } from './variable-checks.js';
import { diskVersions } from './version-checks.js';

export interface DoctorDeps {
  readonly config: Config;
  readonly env: Env;
  readonly clock: () => number;
  readonly resolver: DnsResolver;
  readonly logger: Logger;
  /** Where raw mail is kept; Redis (today's store) when absent. */
  readonly rawStore?: RawStoreProbe;
}

/** Bound on reaching Redis and on each Sender API login, so a dead dependency is one ✗, not a hang. */
const CONNECT_TIMEOUT_MS = 5000;

export async function runDoctor(deps: DoctorDeps): Promise<CheckResult[]> {
  const { config } = deps;
  const results: CheckResult[] = [];
  const redis = await connectRedis(config, results);
  try {
    if (redis !== undefined && config.redisTopology !== undefined) {
      const where = describeTopology(config.redisTopology);
      results.push(
        ...(await checkRawStore(
          deps.rawStore ?? redisRawStoreProbe(redis, config.redisPrefix, where),
          config.rawRetentionMs / 86_400_000,
          config.privacy.rawStoreKeys !== undefined,
        )),
      );
    }
    const { raw, directory } = readDirectory(config, deps.env, results);
    const domains = senderDomains(directory);
    results.push(...senderSettings(directory));
    results.push(...(await checkApi(deps, directory)));
    const dns = await checkDns(deps, domains, redis, directory);
    results.push(...dns.results);
    results.push(...judgeTls(readTls(config), config.smtp.hostname, deps.clock()));
    results.push(...(await checkClamd(config.privacy.clamd, deps.clock(), CONNECT_TIMEOUT_MS)));
    results.push(...(await checkMtaSts(deps)));
    if (raw !== undefined) results.push(...judgeDirectory(raw, dns.domainsWithoutSpf));
    results.push(...diskVersions(config));
    results.push(...judgeVariables(unknownVariablesIn(deps.env, secretVariablesNamedIn(config.sendersFile))));
  } finally {
    redis?.disconnect();
  }
  return results;
}

async function connectRedis(config: Config, results: CheckResult[]): Promise<RedisClient | undefined> {
  const topology = config.redisTopology;
  const variables = TOPOLOGY_VARIABLES.join(' or ');
  if (topology === undefined) {
    results.push(
      warn(
        'Redis',
        'reachable',
        `${variables} unset: \`start\` embeds a durable private redis-server; the smtp, worker and ops roles need one`,
      ),
    );
    return undefined;
  }
  const redis = openRedis(topology, { kind: 'probe', connectTimeoutMs: CONNECT_TIMEOUT_MS });
  redis.on('error', () => {}); // reported below as the check's result
  const where = describeTopology(topology);
  try {
    await withTimeout(redis.connect(), CONNECT_TIMEOUT_MS, 'connecting to Redis');
    if (redis instanceof Cluster) {
      const shard = await withTimeout(prefixShard(redis, config.redisPrefix), CONNECT_TIMEOUT_MS, 'CLUSTER SLOTS');
      results.push(judgeShard(shard, config.redisPrefix, config.redisReplicasAck));
    }
    // INFO and CONFIG of the server that holds the gateway's keys (on a cluster, the slot's master).
    const server = await withTimeout(prefixServer(redis, config.redisPrefix), CONNECT_TIMEOUT_MS, "finding the prefix's server");
    results.push(...judgeRedis(await withTimeout(readRedisFacts(server), CONNECT_TIMEOUT_MS, 'Redis INFO'), where));
    if (topology.kind === 'sentinel')
      results.push(...judgeSentinels(await askSentinels(topology, CONNECT_TIMEOUT_MS), topology.masterName));
    results.push(...judgeReplication(await readReplicationFacts(server, CONNECT_TIMEOUT_MS), config.redisReplicasAck));
    return redis;
  } catch (err) {
    redis.disconnect();
    results.push(
      fail('Redis', 'reachable', `${where}: ${err instanceof Error ? err.message : String(err)}; check ${variables} and that Redis runs`),
    );
    return undefined;
  }
}

function readDirectory(
  config: Config,
  env: Env,
  results: CheckResult[],
): { raw: ReturnType<typeof parseRawDirectory>; directory: SenderDirectory | undefined } {
  const file = config.sendersFile;
  if (file === undefined) {
    results.push(warn('Sender directory', 'SENDERS_FILE', 'unset: `start` uses the demo sender; the worker needs SENDERS_FILE'));
    return { raw: undefined, directory: undefined };
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    results.push(
      fail('Sender directory', 'SENDERS_FILE', `${file} cannot be read as JSON: ${err instanceof Error ? err.message : String(err)}`),
    );
    return { raw: undefined, directory: undefined };
  }
  const raw = parseRawDirectory(json);
  try {
    return { raw, directory: parseSenderDirectory(json, env, `SENDERS_FILE ${file}`, addressesInUse(config)) };
  } catch (err) {
    results.push(fail('Sender directory', 'valid', `the gateway will not start: ${err instanceof Error ? err.message : String(err)}`));
    return { raw, directory: undefined };
  }
}

/** Each sender's own settings, so the operator sees what the gateway applies to whom. */
function senderSettings(directory: SenderDirectory | undefined): CheckResult[] {
  return (directory?.senders ?? []).map((s) => ok('Sender directory', `settings of ${s.companyNameEn}`, settingsLine(s)));
}

function senderDomains(directory: SenderDirectory | undefined): Map<string, string[]> {
  const domains = new Map<string, string[]>();
  for (const address of directory?.senders.flatMap((s) => s.addresses) ?? []) {
    const domain = address.slice(address.lastIndexOf('@') + 1);
    domains.set(domain, [...(domains.get(domain) ?? []), address]);
  }
  return domains;
}

async function checkApi(deps: DoctorDeps, directory: SenderDirectory | undefined): Promise<CheckResult[]> {
  const url = deps.config.senderApiUrl;
  if (url === undefined) return [warn('Sender API', 'SENDER_API_URL', 'unset: `start` serves the sandbox; the worker needs the real API')];
  const transport = judgeApiTransport(url);
  if (transport.status === 'fail' || directory === undefined) return [transport];
  const client = createSenderApiClient({
    baseUrl: url,
    clock: deps.clock,
    timeoutMs: Math.min(deps.config.senderApiTimeoutMs, CONNECT_TIMEOUT_MS),
    logger: deps.logger,
  });
  const logins = await Promise.all(
    directory.senders.map(async (sender): Promise<readonly [Sender, LoginOutcome]> => {
      try {
        await client.as(sender).login();
        return [sender, { ok: true }];
      } catch (error) {
        return [sender, { ok: false, error }];
      }
    }),
  );
  const reachable = judgeReachable(
    logins.map(([, outcome]) => outcome),
    new URL(url).origin,
  );
  if (reachable.status === 'fail') return [transport, reachable];
  return [transport, reachable, ...logins.map(([sender, outcome]) => judgeLogin(sender, outcome))];
}

async function checkDns(
  deps: DoctorDeps,
  domains: ReadonlyMap<string, readonly string[]>,
  redis: RedisClient | undefined,
  directory: SenderDirectory | undefined,
): Promise<{ results: CheckResult[]; domainsWithoutSpf: Set<string> }> {
  const { config, resolver } = deps;
  const results: CheckResult[] = [];
  // The shared processing addresses and every sender's own: each domain's MX must point here.
  const processing = [...config.inboundAddresses, ...(directory?.senders ?? []).flatMap((s) => s.processingAddresses ?? [])];
  const inbound = [...new Set(processing.map((a) => a.slice(a.lastIndexOf('@') + 1)))];
  if (inbound.length === 0)
    results.push(warn('DNS', 'MX', 'INBOUND_ADDRESSES is unset: no processing domain to check (`start` uses the demo address)'));
  for (const domain of inbound) results.push(judgeMx(domain, config.smtp.hostname, await lookup(resolver, domain, 'MX')));
  const domainsWithoutSpf = new Set<string>();
  const selectors = redis === undefined ? new Map<string, Set<string>>() : await recentDkimSelectors(redis, config);
  for (const [domain, addresses] of domains) {
    const spf = judgeSpf(domain, addresses, await lookup(resolver, domain, 'TXT'));
    if (spf.status === 'fail') domainsWithoutSpf.add(domain);
    results.push(spf);
    const signers = [...selectors].filter(([d]) => d === domain || d.endsWith(`.${domain}`) || domain.endsWith(`.${d}`));
    // A sender's listed selectors must have their keys published, whether or not mail came lately.
    const listed = listedSelectors(directory, addresses);
    if (signers.length === 0 && listed.length === 0) results.push(noRecentSelectors(domain));
    const keys = new Set([
      ...signers.flatMap(([d, set]) => [...set].map((s) => `${s}._domainkey.${d}`)),
      ...listed.map((s) => `${s}._domainkey.${domain}`),
    ]);
    for (const name of keys) {
      const [selector = '', d = ''] = name.split('._domainkey.');
      results.push(judgeDkimKey(d, selector, await lookup(resolver, name, 'TXT')));
    }
  }
  return { results, domainsWithoutSpf };
}

function listedSelectors(directory: SenderDirectory | undefined, addresses: readonly string[]): string[] {
  const senders = new Set(addresses.flatMap((a) => directory?.byAddress(a) ?? []));
  return [...new Set([...senders].flatMap((s) => s.dkimSelectors ?? []))];
}

async function checkMtaSts(deps: DoctorDeps): Promise<CheckResult[]> {
  const { config, resolver } = deps;
  const certPem = readTls(config)?.certPem || undefined;
  const results: CheckResult[] = [];
  for (const domain of new Set(config.inboundAddresses.map((a) => a.slice(a.lastIndexOf('@') + 1)))) {
    const [stsTxt, mx, tlsRptTxt] = await Promise.all([
      lookup(resolver, `_mta-sts.${domain}`, 'TXT'),
      lookup(resolver, domain, 'MX'),
      lookup(resolver, `_smtp._tls.${domain}`, 'TXT'),
    ]);
    results.push(...judgeMtaSts(config.privacy.mtaSts, { domain, stsTxt, mx, tlsRptTxt, certPem }));
  }
  return results;
}

function readTls(config: Config): TlsMaterial | undefined {
  const tls = config.smtp.tls;
  if (tls === undefined) return undefined;
  const read = (file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  return { certPem: read(tls.certFile), keyPem: read(tls.keyFile), certFile: tls.certFile };
}
