import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { checkBaseUrl } from '../../src/sender-api/base-url.js';
import { createSenderApiClient } from '../../src/sender-api/client.js';
import { SenderApiConfigError } from '../../src/sender-api/errors.js';

describe('Sender API base URL', () => {
  it('refuses plain http:// to a host that is not loopback, naming SENDER_API_URL', () => {
    const create = () =>
      createSenderApiClient({
        baseUrl: 'http://api.example.com',
        clock: () => 0,
        timeoutMs: 1000,
        logger: createLogger({ level: 'silent' }),
      });
    expect(create).toThrow(SenderApiConfigError);
    expect(create).toThrow(/SENDER_API_URL/);
  });

  it.each(['http://10.0.0.5:8080', 'http://128.0.0.1', 'http://localhost.example.com', 'http://[::2]', 'ftp://127.0.0.1'])(
    'refuses %s',
    (url) => {
      expect(() => checkBaseUrl(url)).toThrow(/SENDER_API_URL/);
    },
  );

  it.each([
    'http://127.0.0.1:8090',
    'http://127.1.2.3',
    'http://localhost:8090',
    'http://LOCALHOST',
    'http://[::1]:8090',
    'https://api.example.com/base/',
  ])('accepts %s', (url) => {
    expect(checkBaseUrl(url).href.startsWith(url.toLowerCase().replace(/\/$/, ''))).toBe(true);
  });

  it('refuses credentials inside the URL without echoing them', () => {
    expect(() => checkBaseUrl('https://user:hunter2@api.example.com')).toThrow(/^(?!.*hunter2).*SENDER_API_URL/);
  });

  it('refuses text that is not a URL', () => {
    expect(() => checkBaseUrl('api.example.com')).toThrow(/SENDER_API_URL is not a valid URL/);
  });
});
