// The ceiling: a bare smtp-server that accepts every message and drains DATA, with no
// authentication, no storage and no reverse DNS lookup. Forked by the bench; announces its
// port over IPC. The same 100 ms greeting delay applies as in the gateway (same library).
// SINK_SMTP_SERVER names the module to load: the bench passes smtp-server as published
// (bench/peer-install.ts), so the project's own patch of the library does not raise the ceiling.
import type { SMTPServer as SmtpServerClass } from 'smtp-server';

const { SMTPServer } = (await import(process.env.SINK_SMTP_SERVER ?? 'smtp-server')) as { SMTPServer: typeof SmtpServerClass };

const MAX_MESSAGE_BYTES = 15 * 1024 * 1024;

const server = new SMTPServer({
  name: 'sink.bench.example',
  size: MAX_MESSAGE_BYTES,
  disabledCommands: ['AUTH', 'STARTTLS'],
  authOptional: true,
  disableReverseLookup: true,
  maxClients: 1000,
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => callback(null, 'OK sunk'));
  },
});
server.on('error', () => {}); // a client resetting its connection is not the sink's concern

server.listen(Number(process.env.SINK_PORT ?? 0), '127.0.0.1', () => {
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.send?.({ kind: 'listening', port });
});
process.on('disconnect', () => process.exit(0));
