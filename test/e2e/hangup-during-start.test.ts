// A SIGHUP while a role starts (a deploy tool, or `docker compose kill -s HUP` right after a
// restart) neither kills it nor gets lost: the process goes on starting, and the reload is
// applied once its parts are up. For every long-running role, as real processes.
import { afterAll, describe, expect, it } from 'vitest';
import { testEnv } from '../helpers/gateway.js';
import { type RoleProcess, runCli } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const prefixes: string[] = [];
const running: RoleProcess[] = [];

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  const redis = connectTestRedis();
  for (const prefix of prefixes) await dropPrefix(redis, prefix);
  redis.disconnect();
});

const READY: Record<string, string> = {
  smtp: 'smtp.listening',
  worker: 'worker.ready',
  start: 'start.ready',
  'sandbox-api': 'sandbox.listening',
  portal: 'portal.listening',
};

/** The reload a SIGHUP asked for: held until the parts were up, or taken at once by a role already up. */
const isReload = (line: Record<string, unknown>): boolean => line.event === 'reload.after_start' || line.event === 'reload.requested';

describe('a SIGHUP during start', () => {
  it.each(['smtp', 'worker', 'start', 'sandbox-api', 'ops', 'portal'])(
    'leaves the %s role running, and the reload is applied once it has started',
    async (role) => {
      const prefix = randomPrefix();
      prefixes.push(prefix);
      const proc = runCli(
        [role],
        testEnv(prefix, { OPS_HTTP_PORT: '0', SANDBOX_PORT: '0', SENDER_API_URL: 'http://127.0.0.1:9/', DASHBOARD_PASSWORD: 'p' }),
      );
      running.push(proc);
      // the first line the process writes: its start has begun, its parts are not all up
      await proc.waitForLog(() => true);
      proc.child.kill('SIGHUP');
      const ready = READY[role];
      const started = await Promise.race([
        proc.exited.then((code) => `ended (${code})`),
        proc.waitForLog((l) => (ready === undefined ? isReload(l) : l.event === ready)).then(() => 'started'),
      ]);
      expect(started).toBe('started');
      const applied = await proc.waitForLog(isReload);
      expect(applied.trigger).toBe('SIGHUP');
      await new Promise((r) => setTimeout(r, 300));
      expect(proc.child.exitCode, proc.text()).toBeNull();
      expect(proc.child.signalCode).toBeNull();
      expect(await proc.stop()).toBe(0);
    },
    30_000,
  );
});
