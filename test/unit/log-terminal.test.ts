// Log lines on a terminal: readable when pino-pretty is installed, JSON when stdout is not a
// terminal or pino-pretty is absent (production images carry no development dependencies).
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { terminalDestination } from '../../src/log-terminal.js';

function capture(): { write(text: string): void; text(): string } {
  let all = '';
  return {
    write: (text) => {
      all += text;
    },
    text: () => all,
  };
}

const notInstalled = () => Promise.reject(Object.assign(new Error("Cannot find package 'pino-pretty'"), { code: 'ERR_MODULE_NOT_FOUND' }));

describe('log lines on a terminal', () => {
  it('are readable lines with the level, the message and the fields, not JSON', async () => {
    const out = capture();
    const destination = await terminalDestination({ isTerminal: true, output: out });
    expect(destination).toBeDefined();
    if (destination === undefined) return;

    createLogger({ level: 'info', name: 'smtp', destination }).info({ event: 'smtp.listening', port: 2525 }, 'listening');

    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the ANSI colour escapes (ESC)
    const text = out.text().replace(/\u001b\[[0-9;]*m/g, ''); // colours off for the comparison
    expect(text).not.toMatch(/^\{/);
    expect(text).toMatch(/INFO.*\(smtp\).*listening/);
    expect(text).toContain('event: "smtp.listening"');
    expect(text).toContain('port: 2525');
  });

  it('still hide secrets', async () => {
    const out = capture();
    const destination = await terminalDestination({ isTerminal: true, output: out });
    if (destination === undefined) throw new Error('pino-pretty is a development dependency: it must load here');

    createLogger({ level: 'info', destination }).info({ apiClientSecret: 's3cret-value' }, 'login');

    expect(out.text()).toContain('login');
    expect(out.text()).not.toContain('s3cret-value');
  });

  it('stay JSON when stdout is not a terminal, without loading pino-pretty', async () => {
    let loads = 0;
    const destination = await terminalDestination({
      isTerminal: false,
      load: () => {
        loads += 1;
        return notInstalled();
      },
    });
    expect(destination).toBeUndefined();
    expect(loads).toBe(0);
  });

  it('stay JSON on a terminal where pino-pretty is not installed', async () => {
    expect(await terminalDestination({ isTerminal: true, load: notInstalled })).toBeUndefined();
  });

  it('do not hide another failure to load pino-pretty', async () => {
    const broken = () => Promise.reject(new Error('syntax error in pino-pretty'));
    await expect(terminalDestination({ isTerminal: true, load: broken })).rejects.toThrow('syntax error in pino-pretty');
  });
});
