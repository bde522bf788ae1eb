// The peers `--peers` drives in every accept cell, after the gateway and with the same
// generator and messages: Haraka (bench/haraka-peer.ts), then a private Postfix
// (bench/postfix-peer.ts) where Postfix can run, which is otherwise skipped with one line.
import { freePort } from '../src/runtime/redis.js';
import { isSinkListening } from './generator-protocol.js';
import { installHaraka } from './peer-install.js';
import { type PostfixPeer, postfixFacts, postfixSkipReason, startPostfix } from './postfix-peer.js';
import { readProcTree, readSupervisedTree, type Sampler } from './proc-stats.js';
import { forkBench, nextMessage } from './processes.js';
import type { PeerName, PostfixMeta } from './results.js';

/** A peer driven in every accept cell; `settle` ends its window (Postfix: once its queue is empty). */
export interface Peer {
  readonly name: PeerName;
  readonly port: number;
  readonly settle?: (log: (line: string) => void) => Promise<void>;
}

export interface StartedPeers {
  readonly peers: readonly Peer[];
  readonly postfix: PostfixMeta;
}

/**
 * Starts both peers; each one's stop goes into `stops` as soon as it runs. Haraka runs in as many
 * processes as the gateway's listener (`processes`), tracked like it: CPU of its master and all
 * its nodes, RSS per process.
 */
export async function startPeers(
  dirs: { readonly temp: string; readonly logDir: string },
  processes: number,
  sampler: Sampler,
  stops: (() => Promise<void>)[],
  log: (line: string) => void,
): Promise<StartedPeers> {
  const home = await installHaraka(log);
  const env = { HARAKA_HOME: home, HARAKA_PORT: String(await freePort()), SMTP_PROCESSES: String(processes) };
  const haraka = forkBench('haraka', 'haraka-peer.ts', env, dirs.logDir);
  stops.push(() => haraka.stop());
  sampler.track('haraka', haraka.pid, readSupervisedTree);
  const peers: Peer[] = [{ name: 'haraka', port: await nextMessage(haraka, (m) => (isSinkListening(m) ? m.port : undefined)) }];
  const skipped = postfixSkipReason(postfixFacts());
  if (skipped !== undefined) {
    log(`Postfix peer skipped: ${skipped}`);
    return { peers, postfix: { skipped } };
  }
  const postfix = await startPostfix(dirs.temp, dirs.logDir, log);
  stops.push(() => postfix.stop());
  sampler.track('postfix', postfix.masterPid, readProcTree);
  peers.push({ name: 'postfix', port: postfix.port, settle: (line) => emptyQueue(postfix, line) });
  return { peers, postfix: { version: postfix.version, mainCf: postfix.config.mainCf, masterCf: postfix.config.masterCf } };
}

const QUEUE_DRAIN_TIMEOUT_MS = 30_000; // 18 cells of a full run: at most 9 minutes, the run within 25

/** Waits (bounded) until Postfix has discarded everything it accepted, so its work stays in its own window. */
async function emptyQueue(postfix: PostfixPeer, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + QUEUE_DRAIN_TIMEOUT_MS;
  while (postfix.pending() > 0) {
    if (Date.now() > deadline) {
      log(`Postfix still holds ${postfix.pending()} messages after ${QUEUE_DRAIN_TIMEOUT_MS / 1000} s; going on`);
      return;
    }
    await new Promise((ok) => setTimeout(ok, 50));
  }
}
