import { describe, expect, it } from 'vitest';
import { networkOf, normalizeAddress } from '../../src/net/client-network.js';
import { cutUtf8 } from '../../src/net/cut-text.js';

const PER_ADDRESS = { v4Bits: 32, v6Bits: 64 };
const PER_SITE = { v4Bits: 24, v6Bits: 64 };

describe('the network a client address is counted in', () => {
  it.each([
    ['192.0.2.7', PER_ADDRESS, '192.0.2.7/32'],
    ['::ffff:192.0.2.7', PER_ADDRESS, '192.0.2.7/32'],
    ['::FFFF:192.0.2.7', PER_SITE, '192.0.2.0/24'],
    ['192.0.2.250', PER_SITE, '192.0.2.0/24'],
    ['2001:db8:1:2::1', PER_ADDRESS, '2001:db8:1:2::/64'],
    ['2001:DB8:1:2:ffff:ffff:ffff:ffff', PER_ADDRESS, '2001:db8:1:2::/64'],
    ['2001:db8:0:0:1::', PER_ADDRESS, '2001:db8::/64'],
    ['fe80::1%eth0', PER_ADDRESS, 'fe80::/64'],
    ['::1', PER_ADDRESS, '::/64'],
    ['64:ff9b::192.0.2.1', PER_ADDRESS, '64:ff9b::/64'],
    ['not an address', PER_ADDRESS, 'not an address'],
  ])('%s counts in %o as %s', (address, prefixes, network) => {
    expect(networkOf(address, prefixes)).toBe(network);
  });

  it('normalizes an IPv4-mapped address to IPv4 and leaves others as they are', () => {
    expect(normalizeAddress('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(normalizeAddress('2001:db8::ffff:1')).toBe('2001:db8::ffff:1');
  });
});

describe('text cut to a number of UTF-8 bytes', () => {
  it.each([
    ['short', 10, 'short'],
    ['abcdef', 4, 'abcd'],
    ['ééé', 5, 'éé'], // two bytes each: the third does not fit whole
    ['a😀b', 4, 'a'], // the emoji is four bytes
    ['a😀b', 5, 'a😀'],
  ])('%s in %i bytes is %s', (text, bytes, cut) => {
    expect(cutUtf8(text, bytes)).toBe(cut);
  });
});
