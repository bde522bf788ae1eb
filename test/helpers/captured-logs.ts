// A logger whose JSON lines a test reads back: for what a part says, not only what it does.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.js';

export interface CapturedLogs {
  readonly logger: Logger;
  readonly logs: Record<string, unknown>[];
  /** Lines with this `event`. */
  events(event: string): Record<string, unknown>[];
}

export function capturedLogs(): CapturedLogs {
  const logs: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line));
      done();
    },
  });
  return {
    logger: createLogger({ level: 'info', destination }),
    logs,
    events: (event) => logs.filter((l) => l.event === event),
  };
}
