// Every fixture message through the real mailauth adapter and the verdict, with DNS answered
// from fixtures/zone.json: what passes must really pass, what fails must fail for its reason.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSION, FIXTURES } from '../../fixtures/catalog.js';
import { authenticateMessage } from '../../src/auth/authenticate.js';
import { judgeAuthentication } from '../../src/auth/verdict.js';
import { loadZoneResolver } from '../../src/auth/zone-resolver.js';

const fixturesDir = join(import.meta.dirname, '../../fixtures');
const zone = loadZoneResolver(join(fixturesDir, 'zone.json'));

describe('fixture messages', () => {
  it.each(FIXTURES.map((f) => [f.file, f] as const))('%s', async (_file, spec) => {
    const raw = readFileSync(join(fixturesDir, 'eml', spec.file));
    const summary = await authenticateMessage(raw, { ...FIXTURE_SESSION, sender: spec.envelopeSender }, zone);
    const verdict = judgeAuthentication(summary);
    console.log(spec.file, JSON.stringify(verdict));
    expect(verdict.outcome).toBe(spec.auth.outcome);
  });
});
