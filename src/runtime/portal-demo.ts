// The demo's portal user: portal@acme.example for the demo sender Acme, with a fresh random
// password at every `npm start` on demo defaults (printed on the terminal, never logged).
import { randomBytes } from 'node:crypto';
import { portalKeys } from '../portal/keys.js';
import { hashPassword } from '../portal/passwords.js';
import { PortalUsers } from '../portal/users.js';
import type { RedisTopology } from '../redis/topology.js';
import { connectForCommand } from './command-redis.js';

export const DEMO_PORTAL_EMAIL = 'portal@acme.example';
const DEMO_SENDER_ID = '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f';

export async function demoPortalUser(
  topology: RedisTopology,
  prefix: string,
  clock: () => number,
): Promise<{ email: string; password: string }> {
  const redis = await connectForCommand(topology, 5000);
  try {
    const users = new PortalUsers(redis, portalKeys(prefix));
    const existing = await users.byEmail(DEMO_PORTAL_EMAIL);
    const user =
      existing ?? (await users.add(DEMO_SENDER_ID, DEMO_PORTAL_EMAIL, clock()).then((added) => (added.ok ? added.user : undefined)));
    if (user === undefined) throw new Error('the demo portal user could not be made');
    const password = randomBytes(12).toString('base64url');
    await users.resetPassword(user.userId, await hashPassword(password));
    return { email: DEMO_PORTAL_EMAIL, password };
  } finally {
    redis.disconnect();
  }
}
