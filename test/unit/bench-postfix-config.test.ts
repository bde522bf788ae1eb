// The private Postfix's configuration as the bench writes it: the committed main.cf and
// master.cf with only the paths and the port filled in, saying what the bench's comparison
// rests on (every transport discards, recipients of intake.example only, no chroot, no
// peer-name lookups, room for the 10 MB message), and refusing a template or a value that
// would leave the files half filled or change their meaning; and the one line that says why
// Postfix is skipped where it cannot run.
import { describe, expect, it } from 'vitest';
import { fillTemplate, type PostfixPaths, readPostfixTemplates, renderPostfixConfig } from '../../bench/postfix-config.js';
import { type PostfixFacts, postfixSkipReason } from '../../bench/postfix-peer.js';

const PATHS: PostfixPaths = {
  queueDirectory: '/tmp/bench-x/postfix/queue',
  dataDirectory: '/tmp/bench-x/postfix/data',
  logFile: '/tmp/bench-x/logs/postfix.log',
  logDirectory: '/tmp/bench-x/logs',
};

/** main.cf's `name = value` lines (comments and blank lines dropped), as postconf reads them. */
function settings(mainCf: string): Map<string, string> {
  const lines = mainCf.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return new Map(
    lines.map((line) => {
      const [name = '', ...value] = line.split('=');
      return [name.trim(), value.join('=').trim()];
    }),
  );
}

/** master.cf's service rows: service name, type and the chroot column. */
function services(masterCf: string): { service: string; type: string; chroot: string }[] {
  return masterCf
    .split('\n')
    .filter((line) => /^[^#\s]/.test(line))
    .map((line) => {
      const [service = '', type = '', , , chroot = ''] = line.split(/\s+/);
      return { service, type, chroot };
    });
}

describe('the private Postfix configuration', () => {
  const config = renderPostfixConfig(readPostfixTemplates(), PATHS, 40123);
  const main = settings(config.mainCf);

  it('fills in the paths and the port, and leaves no placeholder behind', () => {
    expect(main.get('queue_directory')).toBe(PATHS.queueDirectory);
    expect(main.get('data_directory')).toBe(PATHS.dataDirectory);
    expect(main.get('maillog_file')).toBe(PATHS.logFile);
    expect(main.get('maillog_file_prefixes')).toBe(PATHS.logDirectory);
    expect(services(config.masterCf).filter((s) => s.type === 'inet')).toEqual([{ service: '127.0.0.1:40123', type: 'inet', chroot: 'n' }]);
    expect(`${config.mainCf}${config.masterCf}`).not.toContain('{{');
  });

  it.each([
    ['default_transport', 'discard'],
    ['local_transport', 'discard'],
    ['virtual_transport', 'discard'],
    ['relay_transport', 'discard'],
    ['relay_domains', 'intake.example'],
    ['smtpd_recipient_restrictions', 'reject_unauth_destination'],
    ['smtpd_relay_restrictions', 'reject_unauth_destination'],
    ['smtpd_peername_lookup', 'no'],
    ['content_filter', ''],
    ['smtpd_milters', ''],
    ['mail_owner', 'postfix'],
    ['setgid_group', 'postdrop'],
    ['inet_interfaces', '127.0.0.1'],
  ])('sets %s = %s', (name, value) => {
    expect(main.get(name)).toBe(value);
  });

  it('leaves the queue fsync and in_flow_delay as shipped (no setting names them)', () => {
    expect([...main.keys()].filter((name) => /fsync|sync|in_flow_delay/.test(name))).toEqual([]);
  });

  it('takes a 10 MB PDF message (13.7 MB on the wire) with headroom, as the gateway does (15 MiB)', () => {
    expect(Number(main.get('message_size_limit'))).toBe(15 * 1024 * 1024);
    // 0: no mailbox limit, which Postfix requires to be at least message_size_limit otherwise
    expect(main.get('mailbox_size_limit')).toBe('0');
  });

  it('chroots no daemon (n in the chroot column of every service)', () => {
    const rows = services(config.masterCf);
    expect(rows.map((s) => s.service)).toEqual(expect.arrayContaining(['cleanup', 'qmgr', 'discard', 'postlog']));
    expect(rows.filter((s) => s.chroot !== 'n')).toEqual([]);
  });

  it('refuses a template whose placeholder has no value, naming it', () => {
    expect(() => fillTemplate('main.cf', 'queue_directory = {{queue_directory}}\nx = {{spool}}\n', { queue_directory: '/q' })).toThrow(
      'main.cf: no value for {{spool}}',
    );
  });

  it('refuses a template that lost a placeholder the bench fills in', () => {
    const templates = { ...readPostfixTemplates(), masterCf: 'smtp inet n - n - - smtpd\n' };
    expect(() => renderPostfixConfig(templates, PATHS, 40123)).toThrow('master.cf: no {{port}} in the template');
  });

  it('refuses a path with a space, which Postfix would read as two values', () => {
    expect(() => renderPostfixConfig(readPostfixTemplates(), { ...PATHS, logDirectory: '/tmp/my logs' }, 40123)).toThrow(
      'holds a space, comma or line break',
    );
  });
});

describe('whether the private Postfix can run', () => {
  const able: PostfixFacts = { uid: 0, missingFiles: [], missingAccounts: [] };

  it.each([
    [{ ...able, missingFiles: ['/usr/sbin/postfix'] }, 'Postfix is not installed (no /usr/sbin/postfix; Debian: apt-get install postfix)'],
    [{ ...able, uid: 1000 }, 'the bench is not running as root (Postfix starts its master as root)'],
    [{ ...able, missingAccounts: ['group postdrop'] }, 'no group postdrop on this system (the postfix package creates them)'],
    [able, undefined],
  ])('%j: %s', (facts, reason) => {
    expect(postfixSkipReason(facts)).toBe(reason);
  });
});
