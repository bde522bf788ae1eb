import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { diskVersions } from '../../src/doctor/version-checks.js';

describe('doctor: the versions of the reloadable files on disk', () => {
  it('names the sender directory by the first 12 hex digits of its SHA-256, as /readyz does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'letter-intake-versions-'));
    const file = join(dir, 'senders.json');
    writeFileSync(file, '{"senders":[]}');
    const expected = createHash('sha256').update('{"senders":[]}').digest('hex').slice(0, 12);

    const [result] = diskVersions(loadConfig({ SENDERS_FILE: file }));

    expect(result?.detail).toContain(`senders ${expected}`);
  });
});
