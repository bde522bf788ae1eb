// What `start` makes of the environment before it starts anything: the demo defaults, the
// half-configured deployments it refuses, and a listener that cannot bind naming its variable.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { StartupError } from '../../src/errors.js';
import { listeningAs } from '../../src/runtime/listen-errors.js';
import { withDemoDefaults } from '../../src/runtime/start.js';

describe('start settings', () => {
  it('runs the demo when neither SENDERS_FILE nor INBOUND_ADDRESSES is set', () => {
    const { demo, env } = withDemoDefaults({});
    expect(demo).toBe(true);
    expect(env.INBOUND_ADDRESSES).toBe('letters@intake.example');
  });

  it('runs the deployment as given when both are set', () => {
    const given = { SENDERS_FILE: '/etc/intake/senders.json', INBOUND_ADDRESSES: 'letters@intake.example' };
    expect(withDemoDefaults(given)).toEqual({ demo: false, env: given });
  });

  it.each([
    [
      'SENDERS_FILE without INBOUND_ADDRESSES',
      { SENDERS_FILE: '/etc/intake/senders.json' },
      'INBOUND_ADDRESSES: required when SENDERS_FILE',
    ],
    [
      'INBOUND_ADDRESSES without SENDERS_FILE',
      { INBOUND_ADDRESSES: 'letters@intake.example' },
      'SENDERS_FILE: required when INBOUND_ADDRESSES',
    ],
  ])('refuses %s, naming the missing variable', (_what, env, message) => {
    expect(() => withDemoDefaults(env)).toThrow(ConfigError);
    expect(() => withDemoDefaults(env)).toThrow(message);
  });
});

describe('a listener that cannot bind', () => {
  it('names the variable, the address and the reason when the port is in use', async () => {
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const address = holder.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const second = createServer();
    const binding = new Promise<void>((done, fail) => {
      second.once('error', fail);
      second.listen(port, '127.0.0.1', done);
    });

    const outcome = await listeningAs('OPS_HTTP_PORT', { host: '127.0.0.1', port }, binding).catch((err: unknown) => err);
    holder.close();

    expect(outcome).toBeInstanceOf(StartupError);
    expect(String(outcome)).toContain(
      `OPS_HTTP_PORT: cannot listen on 127.0.0.1:${port} (EADDRINUSE: the port is in use by another process)`,
    );
  });

  it('passes any other failure through unchanged', async () => {
    const other = new Error('something else');
    await expect(listeningAs('OPS_HTTP_PORT', { host: '127.0.0.1', port: 1 }, Promise.reject(other))).rejects.toBe(other);
  });
});
