// Where log lines go when a person is watching: readable, coloured lines (pino-pretty) when
// stdout is a terminal and pino-pretty is installed; one JSON line per event otherwise. pino-pretty
// is a development dependency, so production images (and pipes, files, log shippers) get JSON.
import type { DestinationStream } from 'pino';

const loadPinoPretty = () => import('pino-pretty');
type PrettyModule = Awaited<ReturnType<typeof loadPinoPretty>>;

export interface TerminalOptions {
  /** stdout is a terminal (process.stdout.isTTY). */
  readonly isTerminal: boolean;
  /** Loads pino-pretty; rejects with ERR_MODULE_NOT_FOUND where it is not installed. */
  readonly load?: () => Promise<PrettyModule>;
  /** Where the readable lines go: stdout unless a test passes its own stream. */
  readonly output?: { write(text: string): unknown };
}

/** A pretty-printing destination, or undefined for pino's JSON lines on stdout. */
export async function terminalDestination(options: TerminalOptions): Promise<DestinationStream | undefined> {
  if (!options.isTerminal) return undefined;
  const loaded = await (options.load ?? loadPinoPretty)().catch((err: unknown) => {
    if (err instanceof Error && 'code' in err && err.code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  });
  if (loaded === undefined) return undefined;
  const prettify = loaded.prettyFactory({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  const output = options.output ?? process.stdout;
  // Formatted in the write itself (not pino-pretty's asynchronous transform stream), so the
  // last lines before an exit (a shutdown, a start-up failure) are not lost.
  return {
    write: (line: string) => {
      output.write(prettify(line));
    },
  };
}
