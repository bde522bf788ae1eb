// Gateway roles as real processes (`node dist/cli.js <role>`, compiled JavaScript, as in
// production), with their JSON log lines captured and a way to kill them mid-work.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { REPO } from './gateway.js';

export interface RoleProcess {
  readonly child: ChildProcess;
  readonly logs: Record<string, unknown>[];
  /** Everything the process wrote that was not a JSON log line. */
  readonly output: string[];
  /** Everything the process wrote, as written. */
  readonly text: () => string;
  /** Resolves with the first log line (so far or to come) that satisfies `match`. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves with the exit code (or the signal name) once the process ended. */
  readonly exited: Promise<number | string>;
  /** Sends a signal and waits for the exit; resolves with the exit code (or the signal name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

function groupCommitOfRun(): Record<string, string> {
  const value = process.env.GROUP_COMMIT;
  return value === undefined ? {} : { GROUP_COMMIT: value };
}

/** `detached`: the process leads a process group of its own (a test signals the whole group). */
export function runCli(args: readonly string[], env: Record<string, string>, options: { readonly detached?: boolean } = {}): RoleProcess {
  const child = spawn(process.execPath, [resolve(REPO, 'dist/cli.js'), ...args], {
    cwd: REPO,
    detached: options.detached ?? false,
    // One listener process unless a test asks for more: SMTP_PROCESSES defaults to one per core.
    // GROUP_COMMIT set where the suite runs reaches every role (the fault suite run with it on).
    env: { PATH: process.env.PATH ?? '', SMTP_PROCESSES: '1', ...groupCommitOfRun(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  const output: string[] = [];
  const watchers: (() => void)[] = [];
  const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')));
  let pending = '';
  let all = '';
  const take = (chunk: Buffer): void => {
    all += chunk.toString('utf8');
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line));
      } catch {
        output.push(line);
      }
    }
    for (const notify of watchers.splice(0)) notify();
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return {
    child,
    logs,
    output,
    text: () => all,
    exited,
    async waitForLog(match, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = logs.find(match);
        if (found !== undefined) return found;
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`no matching log line from "${args.join(' ')}" (exit ${child.exitCode}):\n${output.slice(-20).join('\n')}`);
        }
        await new Promise<void>((r) => {
          watchers.push(r);
          setTimeout(r, 200);
        });
      }
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Starts a role and waits for its ready line. */
export async function startRole(role: 'smtp' | 'worker' | 'ops' | 'start', env: Record<string, string>): Promise<RoleProcess> {
  const proc = runCli([role], env);
  const ready: Record<string, string> = { smtp: 'smtp.listening', worker: 'worker.ready', ops: 'ops.listening', start: 'start.ready' };
  await proc.waitForLog((l) => l.event === ready[role]);
  return proc;
}

/** Runs a one-shot command (send, status, replay) to its end. */
export async function runCommand(args: readonly string[], env: Record<string, string>): Promise<{ code: number | string; text: string }> {
  const proc = runCli(args, env);
  const code = await new Promise<number | string>((done) => proc.child.once('close', (c, s) => done(c ?? s ?? 'unknown')));
  return { code, text: proc.text() };
}
