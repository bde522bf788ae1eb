// Docker and docker-compose for the container suite: commands run with their output kept, a
// Docker engine found or started, and the stack's compose project driven by name.
import { execFile, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end (bounded), never throwing on a non-zero exit. */
export function run(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((done) => {
    execFile(
      command,
      [...args],
      { env: options.env ?? process.env, cwd: options.cwd, timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        done({ code, stdout, stderr: err !== null && typeof err.code !== 'number' ? `${stderr}${err.message}` : stderr });
      },
    );
  });
}

const sleep = (ms: number): Promise<void> => new Promise((ok) => setTimeout(ok, ms));

export type Engine = { readonly ok: true; readonly started: boolean } | { readonly ok: false; readonly reason: string };

/**
 * A Docker engine and docker-compose to drive it: the running engine, or `dockerd` started here
 * (as root, when installed). The classic builder throughout: BuildKit would fetch its frontend.
 */
export async function findEngine(): Promise<Engine> {
  if ((await run('docker-compose', ['version'])).code !== 0) return { ok: false, reason: 'docker-compose is not installed' };
  if ((await run('docker', ['info'])).code === 0) return { ok: true, started: false };
  if ((await run('sh', ['-c', 'command -v dockerd'])).code !== 0)
    return { ok: false, reason: 'no Docker engine (dockerd is not installed)' };
  if (process.getuid?.() !== 0) return { ok: false, reason: 'no Docker engine running, and starting dockerd needs root' };
  const log = openSync(join(tmpdir(), 'dockerd.log'), 'a');
  spawn('dockerd', [], { detached: true, stdio: ['ignore', log, log] }).unref();
  for (let i = 0; i < 60; i++) {
    if ((await run('docker', ['info'])).code === 0) return { ok: true, started: true };
    await sleep(500);
  }
  return { ok: false, reason: `dockerd did not start (see ${join(tmpdir(), 'dockerd.log')})` };
}

/** Polls `check` every `everyMs` until it returns a value other than undefined, or throws after `withinMs`. */
export async function waitFor<T>(what: string, withinMs: number, check: () => Promise<T | undefined>, everyMs = 500): Promise<T> {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms${last === undefined ? '' : ` (${String(last)})`}`);
    await sleep(everyMs);
  }
}

/** One compose project (`-p NAME`) over the repository's docker-compose.yml. */
export class ComposeProject {
  constructor(
    readonly name: string,
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  compose(args: readonly string[], timeoutMs = 300_000): Promise<CommandResult> {
    return run('docker-compose', ['-p', this.name, ...args], { env: this.env, cwd: this.cwd, timeoutMs });
  }

  docker(args: readonly string[], timeoutMs = 300_000): Promise<CommandResult> {
    return run('docker', args, { env: this.env, cwd: this.cwd, timeoutMs });
  }

  async containerId(service: string): Promise<string> {
    const { stdout } = await this.compose(['ps', '-q', service]);
    const id = stdout.trim();
    if (id === '') throw new Error(`no container for ${service}`);
    return id;
  }

  /** The container's state as `docker inspect` reports it (health when it has a check). */
  async state(service: string): Promise<{ status: string; health: string; exitCode: number }> {
    const id = await this.containerId(service);
    const { stdout } = await this.docker([
      'inspect',
      '-f',
      '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}} {{.State.ExitCode}}',
      id,
    ]);
    const [status = '', health = '', exitCode = ''] = stdout.trim().split(' ');
    return { status, health, exitCode: Number(exitCode) };
  }

  waitHealthy(service: string, withinMs: number): Promise<true> {
    return waitFor(`${service} healthy`, withinMs, async () => ((await this.state(service)).health === 'healthy' ? true : undefined));
  }
}
