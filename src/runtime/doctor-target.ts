// What `letter-intake doctor` checks. With a Redis topology set (REDIS_URL, REDIS_SENTINELS): the
// deployment the environment describes. Without one, and with a running `npm start` (found as `status` finds it, through
// DATA_DIR): that gateway, with the settings `start` filled in for itself — its embedded Redis,
// its sandbox Sender API, and the demo setup when no sender directory is configured. Pure.
import { loadConfig } from '../config.js';
import type { Env } from '../config-env.js';
import { type CheckResult, fail, warn } from '../doctor/result.js';
import { TOPOLOGY_VARIABLES } from '../redis/topology.js';
import { withDemoDefaults } from './start.js';

/** The demo is made to run on one machine, not to receive mail: two lines are expected to complain. */
const DEMO_NOTE =
  ', the demo setup.\nThe demo zone publishes no MX and the demo has no certificate: its MX and STARTTLS lines are expected to warn.';

export interface DoctorTarget {
  readonly env: Env;
  /** One line for the top of the checklist: what is being checked. */
  readonly heading: string;
  /** The demo setup, whose missing MX is expected; nothing: no gateway found to check. */
  readonly kind: 'configured' | 'demo' | 'start' | 'nothing';
}

/**
 * The results as the exit code should judge them: the demo's missing MX is expected (a ! with
 * the reason, so a healthy demo exits 0), and with no gateway found the run fails (exit 1).
 */
export function judgedFor(target: DoctorTarget, results: readonly CheckResult[]): CheckResult[] {
  if (target.kind === 'nothing') {
    return [
      ...results,
      fail(
        'Redis',
        'a gateway to check',
        'no Redis configured and no running `npm start`: nothing was checked; start `npm start`, or set REDIS_URL',
      ),
    ];
  }
  if (target.kind !== 'demo') return [...results];
  return results.map((r) =>
    r.area === 'DNS' && r.name.startsWith('MX of ') && r.status === 'fail'
      ? warn(r.area, r.name, `${r.detail} (expected in the demo: its zone publishes no MX)`)
      : r,
  );
}

const orUnset = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

export function doctorTarget(env: Env, runningStartRedisUrl: string | undefined): DoctorTarget {
  const set = TOPOLOGY_VARIABLES.filter((name) => orUnset(env[name]) !== undefined);
  if (set.length > 0)
    return { env, kind: 'configured', heading: `Checking the deployment the environment describes (${set.join(', ')} set).` };
  if (runningStartRedisUrl === undefined) {
    return {
      env,
      kind: 'nothing',
      heading:
        'No Redis configured (REDIS_URL, REDIS_SENTINELS) and no running `npm start` found: checking the environment as it is. Start `npm start` first, or give the variables of your deployment.',
    };
  }
  const { env: started, demo } = withDemoDefaults(env);
  const sandbox = loadConfig(started).sandbox;
  const sandboxHost = sandbox.host === '0.0.0.0' ? '127.0.0.1' : sandbox.host;
  const apiUrl = orUnset(env.SENDER_API_URL) ?? `http://${sandboxHost}:${sandbox.port}`;
  return {
    env: { ...started, REDIS_URL: runningStartRedisUrl, SENDER_API_URL: apiUrl },
    kind: demo ? 'demo' : 'start',
    heading: `Checking the running \`npm start\`: its Redis at ${runningStartRedisUrl}, the Sender API at ${apiUrl}${demo ? DEMO_NOTE : '.'}`,
  };
}
