// The demo's sender, as `npm start` sets it up from fixtures/: Acme Utilities, whose DNS (the
// static zone fixtures/zone.json) publishes SPF for the loopback addresses and the DKIM key
// below under selector rsa2048. A TEST KEY for *.example domains: never use it elsewhere.
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export const DEMO_SENDER = {
  from: 'Acme Utilities <letters@acme.example>',
  address: 'letters@acme.example',
  dkimDomain: 'acme.example',
  dkimSelector: 'rsa2048',
  keyFile: `${FIXTURES}keys/acme-rsa2048.pem`,
} as const;
