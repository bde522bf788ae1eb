// /readyz of a role that carries a raw store, started as the composition roots start it
// (runtime/ops-part.ts): the store is probed, and a store that stops working makes it 503. The
// public answer names the failing check and nothing internal; the reason (the path, the errno)
// is behind the admin login.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { openRawStore } from '../../src/raw-store/open-store.js';
import { startOpsPart } from '../../src/runtime/ops-part.js';
import { randomPrefix, standaloneTopology, TEST_REDIS_URL } from '../helpers/redis.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startRoleWithStore(clock: () => number) {
  const parent = mkdtempSync(join(tmpdir(), 'readiness-store-'));
  cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
  const dir = join(parent, 'raw');
  const config = loadConfig({
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: randomPrefix(),
    OPS_HTTP_HOST: '127.0.0.1',
    OPS_HTTP_PORT: '0',
    RAW_STORE_URL: pathToFileURL(dir).href,
    DASHBOARD_PASSWORD: PASSWORD,
    LOG_LEVEL: 'silent',
  });
  const rawStore = openRawStore({ location: config.rawStore.location, timeoutMs: 1000, s3PathStyle: false });
  await rawStore.check();
  const ops = await startOpsPart({ config, env: {}, logger: createLogger({ level: 'silent' }), clock }, standaloneTopology(), {
    admin: true,
    rawStore,
  });
  ops.markStarted();
  cleanups.push(() => ops.close());
  return { url: ops.url, dir };
}

const PASSWORD = 'readiness-password';

const readyz = async (url: string) => {
  const response = await fetch(`${url}/readyz`);
  const text = await response.text();
  const body = JSON.parse(text) as { checks: { rawStore: unknown } };
  return { status: response.status, rawStore: body.checks.rawStore, text };
};

const readinessDetails = async (url: string, password = PASSWORD) => {
  const response = await fetch(`${url}/admin/readyz`, {
    headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` },
  });
  return { status: response.status, text: await response.text() };
};

describe('/readyz and the raw store', () => {
  it('probes the raw store of a role that uses it, and answers 503 once its directory is replaced by a file', async () => {
    let now = 1_000_000;
    const { url, dir } = await startRoleWithStore(() => now);
    const before = await readyz(url);
    expect(before.status).toBe(200);
    expect(before.rawStore).toBe('ok');

    rmSync(dir, { recursive: true, force: true });
    writeFileSync(dir, 'not a directory');
    now += 60_000; // past any cached answer
    const after = await readyz(url);
    expect(after.status).toBe(503);
    expect(after.rawStore).toBe('failing');
    expect(after.text).not.toMatch(/ENOTDIR|ENOENT|EEXIST|Error|raw store/);
    expect(after.text).not.toContain(dir);
    expect(JSON.parse(after.text)).toEqual({
      ready: false,
      checks: { role: 'ok', redis: 'ok', queue: 'ok', rawStore: 'failing', senderApi: 'ok' },
      loaded: {},
    });

    expect((await readinessDetails(url, 'wrong')).status).toBe(401);
    const details = await readinessDetails(url);
    expect(details.status).toBe(503);
    expect(details.text).toMatch(/ENOTDIR|ENOENT|EEXIST/);
    expect(details.text).toContain(dir);
  });

  it('answers from the last probe for a few seconds: a flood of probes does not write a flood of files', async () => {
    let now = 1_000_000;
    const { url, dir } = await startRoleWithStore(() => now);
    expect((await readyz(url)).status).toBe(200);
    rmSync(dir, { recursive: true, force: true });
    writeFileSync(dir, 'not a directory');
    now += 1000;
    expect((await readyz(url)).status).toBe(200); // the cached probe
    now += 10_000;
    expect((await readyz(url)).status).toBe(503);
  });
});
