import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { it } from 'vitest';
import { authenticateMessage } from '../../src/auth/authenticate.js';
import { createZoneResolver } from '../../src/auth/zone-resolver.js';
const peer = resolve(import.meta.dirname, '../..', '../shared/peer/dkim');
it('probe', async () => {
  const z = createZoneResolver({ 'sed._domainkey.test.ex': { TXT: [readFileSync(resolve(peer, 'dkimpy/eximtest.dns'), 'utf8').trim()] } });
  const s = await authenticateMessage(readFileSync(resolve(peer, 'dkimpy/ed25519test2.msg')), { ip: '127.0.0.1', helo: 'x.example', sender: 'a@test.ex', mta: 'mx' }, z);
  console.log(JSON.stringify(s.dkim));
});
