// Each sender of SENDERS_FILE as the file reads now (no secrets resolved), with its settings in
// words and its use of its limits, for the senders page.
import { readFileSync } from 'node:fs';
import { senderUse } from '../intake/sender-limits.js';
import type { RedisClient } from '../redis/connections.js';
import { listenerDirectoryOf } from '../senders/directory.js';
import { settingsLine } from '../senders/settings-text.js';
import type { AddressesInUse } from '../senders/tenant-settings.js';
import type { SenderView } from './senders-page.js';

export interface SenderViewDeps {
  readonly sendersFile: string | undefined;
  readonly inUse: AddressesInUse;
  readonly redis: RedisClient;
  readonly prefix: string;
  readonly now: number;
}

export async function senderViews(deps: SenderViewDeps): Promise<SenderView[]> {
  const file = deps.sendersFile;
  if (file === undefined) return [];
  const directory = listenerDirectoryOf(JSON.parse(readFileSync(file, 'utf8')), file, deps.inUse);
  return Promise.all(
    directory.senders.map(async (s) => ({
      senderId: s.senderId,
      companyNameEn: s.companyNameEn,
      addresses: s.addresses,
      settings: settingsLine(s),
      limits: s.limits,
      use: s.limits === undefined ? undefined : await senderUse(deps.redis, deps.prefix, s.senderId, deps.now),
    })),
  );
}
