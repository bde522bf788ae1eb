// What /proc says about processes (Linux): which redis-servers work in a directory, a process's
// group, whether it still runs. Read from outside, so a test sees what an operator's `ps` sees.
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';

/** The pids of the redis-servers whose working directory is `dir` (redis-server changes to its --dir). */
export function redisServersIn(dir: string): number[] {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return [];
  }
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('redis-server') && readlinkSync(`/proc/${pid}/cwd`) === real;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The process group of a running process (field 5 of /proc/PID/stat). */
export function processGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(afterName[2]);
}

/** Stops what a test left running, by pid. */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
