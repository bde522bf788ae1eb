// A sender directory with per-sender settings, written to a fresh file: the fixture senders
// (acme.example, globex.example) with the settings a test gives each.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FIXTURE_DIR } from './gateway.js';

type Entry = Record<string, unknown>;

export function tenantSendersFile(settings: { readonly acme?: Entry; readonly globex?: Entry }): string {
  const fixtures = JSON.parse(readFileSync(resolve(FIXTURE_DIR, 'senders.json'), 'utf8')) as { senders: Entry[] };
  const [acme, globex] = fixtures.senders;
  const senders = [
    { ...acme, ...settings.acme },
    { ...globex, ...settings.globex },
  ];
  const file = join(mkdtempSync(join(tmpdir(), 'tenant-senders-')), 'senders.json');
  writeFileSync(file, JSON.stringify({ senders }));
  return file;
}
