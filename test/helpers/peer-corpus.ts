// Test material from other projects (DKIM vectors, real MIME messages) is not in this
// repository: it is found at PEER_CORPUS_DIR (default ../shared/peer beside the clone). A suite
// that needs it and does not find it says so in one line and is skipped, so a fresh clone
// anywhere runs `npm test` green; CI sets PEER_CORPUS_REQUIRED=1 (.ci/run), and then a missing
// corpus fails the suite instead.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '../..');

export const PEER_CORPUS_DIR = resolve(REPO, process.env.PEER_CORPUS_DIR || '../shared/peer');

/**
 * The corpus folder `sub` (e.g. `mime`), or undefined when it is absent, after one line naming
 * the skipped suite. With PEER_CORPUS_REQUIRED=1 an absent folder throws instead.
 */
export function peerCorpus(sub: string, suite: string): string | undefined {
  const dir = resolve(PEER_CORPUS_DIR, sub);
  if (existsSync(dir)) return dir;
  if (process.env.PEER_CORPUS_REQUIRED === '1') throw new Error(`peer corpus not found at ${dir} (PEER_CORPUS_REQUIRED=1)`);
  process.stdout.write(`peer corpus not found at ${dir}: ${suite} skipped\n`);
  return undefined;
}
