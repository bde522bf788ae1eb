// The sandbox's address as the gateway calls it: a sandbox listening on every interface (in a
// container, to be published) is still called over loopback, the one place plain http may go.
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startSandbox } from '../../src/sandbox/start.js';
import { checkBaseUrl } from '../../src/sender-api/base-url.js';
import { testClock, testDirectory } from '../helpers/sandbox.js';

describe('sandbox address', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  it('names 127.0.0.1 when it listens on 0.0.0.0, an address the Sender API client accepts', async () => {
    const running = await startSandbox({
      directory: testDirectory(),
      clock: testClock().now,
      logger: createLogger({ level: 'silent' }),
      host: '0.0.0.0',
      port: 0,
    });
    closers.push(running.close);
    const url = new URL(running.url);
    expect(url.hostname).toBe('127.0.0.1');
    expect(checkBaseUrl(running.url).origin).toBe(url.origin);
    const answer = await fetch(`${running.url}/sandbox/letters`);
    expect(answer.status).toBe(200);
  });
});
