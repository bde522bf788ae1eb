// Which Redis deployment the gateway talks to, as config.ts reads it from the environment: one
// server by URL, a primary found through Sentinels, or a Redis Cluster. Every connection of every
// role is opened from this (connections.ts); `npm start` embeds its own redis-server when none is
// configured.

/** The environment variables that each choose a topology; at most one may be set. */
export const TOPOLOGY_VARIABLES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** TLS towards Redis: the CA file to trust (unset: the system's CAs). */
export interface RedisTls {
  readonly caFile: string | undefined;
}

export interface StandaloneTopology {
  readonly kind: 'standalone';
  /** redis:// or rediss://, credentials included. */
  readonly url: string;
  /** Present for rediss:// with REDIS_TLS_CA_FILE. */
  readonly tls: RedisTls | undefined;
}

export interface SentinelTopology {
  readonly kind: 'sentinel';
  readonly sentinels: readonly HostPort[];
  /** The master group name the Sentinels monitor (`sentinel monitor <name> …`). */
  readonly masterName: string;
  /** Credentials of the primary and replicas (REDIS_USERNAME, REDIS_PASSWORD). */
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** Credentials of the Sentinels themselves (their `requirepass`). */
  readonly sentinelUsername: string | undefined;
  readonly sentinelPassword: string | undefined;
  /** TLS to the primary (REDIS_TLS) and to the Sentinels (REDIS_SENTINEL_TLS); undefined: plain TCP. */
  readonly tls: RedisTls | undefined;
  readonly sentinelTls: RedisTls | undefined;
}

/**
 * A Redis Cluster (a managed cluster endpoint, or its nodes). Every key the gateway writes carries
 * the prefix's hash tag, so the whole gateway lives in one slot: one shard carries it.
 */
export interface ClusterTopology {
  readonly kind: 'cluster';
  /** Nodes to learn the cluster's slots from; the client then talks to whichever owns a slot. */
  readonly nodes: readonly HostPort[];
  /** Credentials of every node (REDIS_USERNAME, REDIS_PASSWORD). */
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** TLS to every node (REDIS_TLS); undefined: plain TCP. */
  readonly tls: RedisTls | undefined;
}

export type RedisTopology = StandaloneTopology | SentinelTopology | ClusterTopology;

/** The Sentinel port when an entry gives none. */
export const SENTINEL_DEFAULT_PORT = 26379;

/** A cluster node's port when an entry gives none. */
export const CLUSTER_DEFAULT_PORT = 6379;

/**
 * The hash tag of a key prefix as Redis Cluster reads it (the text between the first `{` and the
 * next `}`, when not empty), or undefined: the prefix's keys would then spread over the slots.
 */
export function hashTagOf(prefix: string): string | undefined {
  const open = prefix.indexOf('{');
  if (open < 0) return undefined;
  const close = prefix.indexOf('}', open + 1);
  if (close <= open + 1) return undefined;
  return prefix.slice(open + 1, close);
}

/**
 * "host:port,host:port" → addresses; an IPv6 address goes in brackets ("[::1]:26379"); a missing
 * port is `defaultPort`. Throws an Error naming the entry that is not an address.
 */
export function parseHostPorts(text: string, defaultPort: number): HostPort[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) throw new Error('expected host:port entries separated by commas');
  return entries.map((entry) => parseHostPort(entry, defaultPort));
}

function parseHostPort(entry: string, defaultPort: number): HostPort {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]/]+))(?::(\d{1,5}))?$/.exec(entry);
  const host = match?.[1] ?? match?.[2];
  const port = match?.[3] === undefined ? defaultPort : Number(match[3]);
  if (host === undefined || port < 1 || port > 65_535) {
    throw new Error(`"${entry}" is not host:port (an IPv6 address in brackets: [::1]:26379)`);
  }
  return { host, port };
}

/** One line for logs and messages: where Redis is, never a password. */
export function describeTopology(topology: RedisTopology): string {
  switch (topology.kind) {
    case 'standalone':
      return redactUrl(topology.url);
    case 'sentinel':
      return `primary "${topology.masterName}" through Sentinels ${topology.sentinels.map(hostPortText).join(',')}`;
    case 'cluster':
      return `Redis Cluster through ${topology.nodes.map(hostPortText).join(',')}`;
    default:
      return unknownTopology(topology);
  }
}

export function hostPortText(address: HostPort): string {
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

/** The compile-time check that every switch over topologies handles every kind. */
export function unknownTopology(topology: never): never {
  throw new Error(`unknown Redis topology ${JSON.stringify(topology)}`);
}
