// Where the peer corpus lives (material from other projects, not in this repository):
// PEER_CORPUS_DIR, default ../shared/peer next to the repository. Suites that read it skip,
// saying so in one line, when it is absent.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '../..');

export const PEER_CORPUS_DIR = resolve(REPO, process.env['PEER_CORPUS_DIR'] ?? '../shared/peer');

export const PEER_CORPUS_PRESENT = existsSync(PEER_CORPUS_DIR);

export const PEER_CORPUS_ABSENT_NOTE = `peer corpus not found at ${PEER_CORPUS_DIR} (set PEER_CORPUS_DIR): skipped`;
