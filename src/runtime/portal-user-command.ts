// `letter-intake portal-user add | list | disable | link`: an operator's accounts on the sender
// portal. `add` and `link` print the one-time set-password link alone on its own line of standard
// output (valid 24 h, used once), so a script can read it; everything else goes to standard error.
import type { Env } from '../config-env.js';
import { portalKeys } from '../portal/keys.js';
import { PortalUsers } from '../portal/users.js';
import { commandRedisTopology, connectForCommand } from './command-redis.js';
import { roleContext, senderDirectoryOf } from './context.js';
import type { CommandOptions } from './intake-commands.js';
import { Reloads } from './reloads.js';
import { withDemoDefaults } from './start.js';

export async function portalUserCommand(args: readonly string[], options: CommandOptions = {}): Promise<number> {
  const [action] = args;
  const email = typeof options.email === 'string' ? options.email.trim().toLowerCase() : '';
  const senderId = typeof options.sender === 'string' ? options.sender.trim() : '';
  if (action !== 'add' && action !== 'list' && action !== 'disable' && action !== 'link') {
    process.stderr.write(
      'usage: letter-intake portal-user add --sender SENDER_ID --email ADDRESS | list | disable --email ADDRESS | link --email ADDRESS\n',
    );
    return 64;
  }
  if (action !== 'list' && !/^[^@\s]+@[^@\s]+$/.test(email)) {
    process.stderr.write(`portal-user ${action}: --email ADDRESS is required\n`);
    return 64;
  }
  // The same sender directory `start` uses: the demo's when nothing is configured.
  const env: Env = withDemoDefaults(process.env).env;
  const ctx = roleContext(env, 'portal-user');
  const redis = await connectForCommand(commandRedisTopology(ctx.config), 10_000);
  try {
    const users = new PortalUsers(redis, portalKeys(ctx.config.redisPrefix));
    const base = ctx.config.portal.publicUrl ?? `http://127.0.0.1:${ctx.config.portal.port}`;
    const link = (token: string): string => `${base}/portal/set-password?token=${token}`;
    if (action === 'list') {
      const directory = senderDirectoryOf(ctx, new Reloads(ctx.logger));
      for (const u of await users.list()) {
        const company = directory.bySenderId(u.senderId)?.companyNameEn ?? '(sender no longer registered)';
        const state = u.disabled ? 'disabled' : u.passwordHash === undefined ? 'no password yet' : 'active';
        const factor = u.totpSecret === undefined ? 'password only' : 'two-factor';
        process.stdout.write(`${u.email}\t${u.senderId}\t${company}\t${state}\t${factor}\n`);
      }
      return 0;
    }
    if (action === 'disable') {
      const user = await users.disable(email);
      if (user === undefined) {
        process.stderr.write(`no portal user ${email}\n`);
        return 1;
      }
      process.stderr.write(`portal user ${email} disabled; its sessions end at their next request\n`);
      return 0;
    }
    if (action === 'link') {
      const user = await users.byEmail(email);
      if (user === undefined || user.disabled) {
        process.stderr.write(`no enabled portal user ${email}\n`);
        return 1;
      }
      process.stdout.write(`${link(await users.invite(user.userId))}\n`);
      return 0;
    }
    const directory = senderDirectoryOf(ctx, new Reloads(ctx.logger));
    const sender = directory.bySenderId(senderId);
    if (sender === undefined) {
      process.stderr.write(`portal-user add: no sender ${senderId || '(none given: --sender SENDER_ID)'} in the sender directory\n`);
      return 1;
    }
    const added = await users.add(sender.senderId, email, ctx.clock());
    if (!added.ok) {
      process.stderr.write(`portal-user add: ${added.reason}\n`);
      return 1;
    }
    process.stderr.write(`portal user ${email} made for ${sender.companyNameEn}; send them this link (valid 24 hours, once):\n`);
    process.stdout.write(`${link(added.token)}\n`);
    return 0;
  } finally {
    redis.disconnect();
  }
}
