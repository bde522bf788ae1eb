// pino with redaction: client secrets, session ids and message content never reach a log line.
import { type DestinationStream, type LevelWithSilent, type Logger, pino } from 'pino';

export type { Logger } from 'pino';

export const REDACTED_PATHS = [
  'apiClientSecret',
  '*.apiClientSecret',
  'sessionId',
  '*.sessionId',
  'headers["x-session"]',
  'headers["x-api-client-secret"]',
  '*.headers["x-session"]',
  '*.headers["x-api-client-secret"]',
  'req.headers.authorization',
  'base64Data',
  '*.base64Data',
  'raw',
  '*.raw',
  'body',
  '*.body',
];

export interface LoggerOptions {
  readonly level: LevelWithSilent;
  readonly name?: string;
  /** Where lines go; stdout (JSON) when absent. Tests capture logs through this; a terminal gets log-terminal.ts's. */
  readonly destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const base = {
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(options.name === undefined ? {} : { name: options.name }),
  };
  return options.destination === undefined ? pino(base) : pino(base, options.destination);
}
