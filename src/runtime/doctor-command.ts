// `letter-intake doctor`: checks the deployment the environment describes (or the running
// `npm start`, doctor-target.ts) and prints the checklist; exit 1 when any check failed, or
// when there was nothing to check; the demo's expected complaints do not fail it.
import { loadZoneResolver } from '../auth/zone-resolver.js';
import { loadConfig } from '../config.js';
import { formatChecklist } from '../doctor/printer.js';
import { rawStoreProbe } from '../doctor/raw-store-checks.js';
import { exitCodeOf } from '../doctor/result.js';
import { runDoctor } from '../doctor/run-doctor.js';
import { createLogger } from '../log.js';
import { createLiveResolver } from '../net/resolver.js';
import { openRawStore } from '../raw-store/open-store.js';
import { roleContext } from './context.js';
import { doctorTarget, judgedFor } from './doctor-target.js';
import { embeddedRedisUrl } from './embedded-redis.js';

export async function doctorCommand(): Promise<number> {
  const target = doctorTarget(process.env, embeddedRedisUrl(loadConfig(process.env).dataDir));
  const ctx = roleContext(target.env, 'doctor');
  const { config } = ctx;
  const resolver =
    config.dns.zoneFile === undefined
      ? createLiveResolver({ timeoutMs: config.dns.timeoutMs, tries: config.dns.tries })
      : loadZoneResolver(config.dns.zoneFile);
  const rawStore = openRawStore({
    location: config.rawStore.location,
    timeoutMs: config.enqueueTimeoutMs,
    s3PathStyle: config.rawStore.s3PathStyle,
  });
  const results = await runDoctor({
    config,
    env: ctx.env,
    clock: ctx.clock,
    resolver,
    logger: createLogger({ level: 'silent' }),
    rawStore: rawStoreProbe(rawStore),
  }).finally(() => rawStore.close());
  const judged = judgedFor(target, results);
  process.stdout.write(`${target.heading}\n\n${formatChecklist(judged)}`);
  return exitCodeOf(judged);
}
