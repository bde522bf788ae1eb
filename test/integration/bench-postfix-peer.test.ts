// The bench's private Postfix for real: started from the committed main.cf and master.cf in a
// temporary directory, it takes a message for intake.example (250 after its queue file is
// written), discards it (the queue empties), refuses any other domain, and is gone once stopped.
// Where Postfix cannot run (not root, not installed) the suite is skipped with one line.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type PostfixPeer, postfixFacts, postfixSkipReason, startPostfix } from '../../bench/postfix-peer.js';
import { readProcTree } from '../../bench/proc-stats.js';
import { sendOnce } from '../helpers/smtp-client.js';

const skipped = postfixSkipReason(postfixFacts());
if (skipped !== undefined) process.stdout.write(`private Postfix cannot run (${skipped}): bench-postfix-peer skipped\n`);

const message = (to: string): { from: string; to: string[]; raw: Buffer } => ({
  from: 'bounce@acme.example',
  to: [to],
  raw: Buffer.from(
    `From: <letters@acme.example>\r\nTo: <${to}>\r\nSubject: bench peer\r\nMessage-ID: <peer-1@acme.example>\r\n\r\nHello.\r\n`,
  ),
});

/** Not gone and not a zombie (a container's PID 1 may never reap the daemonised master). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe.skipIf(skipped !== undefined)('the private Postfix peer', () => {
  let temp = '';
  let postfix: PostfixPeer | undefined;

  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), 'bench-postfix-peer-'));
    mkdirSync(join(temp, 'logs'));
    postfix = await startPostfix(temp, join(temp, 'logs'), () => {});
  });

  afterAll(async () => {
    await postfix?.stop();
    rmSync(temp, { recursive: true, force: true });
  });

  it('accepts a message for intake.example and discards it', async () => {
    const replies = await sendOnce(postfix?.port ?? 0, message('letters@intake.example'));
    expect(replies.data?.code).toBe(250);
    await vi.waitFor(() => expect(postfix?.pending()).toBe(0), { timeout: 20_000, interval: 50 });
    await vi.waitFor(() => expect(readFileSync(join(temp, 'logs', 'postfix.log'), 'utf8')).toMatch(/discard.*status=sent/), {
      timeout: 20_000,
      interval: 50,
    });
  });

  it('refuses a recipient of any other domain', async () => {
    const replies = await sendOnce(postfix?.port ?? 0, message('someone@elsewhere.example'));
    expect(replies.rcpt?.text).toMatch(/^554 5\.7\.1 .*Relay access denied/);
  });

  it('runs as the master and its daemons, all gone once stopped', async () => {
    const master = postfix?.masterPid ?? 0;
    const daemons = readFileSync(`/proc/${master}/task/${master}/children`, 'latin1').trim().split(/\s+/).map(Number);
    // at least qmgr, pickup and postlogd run from the start
    expect(daemons.length).toBeGreaterThanOrEqual(3);
    expect(readProcTree(master)?.rssBytes).toBeGreaterThan(0);
    await postfix?.stop();
    postfix = undefined;
    expect(running(master)).toBe(false);
    await vi.waitFor(() => expect(daemons.filter(running)).toEqual([]), { timeout: 10_000, interval: 50 });
  });
});
