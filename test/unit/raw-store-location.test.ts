import { describe, expect, it } from 'vitest';
import { describeLocation, parseRawStoreUrl } from '../../src/raw-store/location.js';

describe('the raw store location', () => {
  it.each([
    ['file:///var/lib/letter-intake/raw', { kind: 'file', dir: '/var/lib/letter-intake/raw' }],
    ['file:///srv/raw%20mail', { kind: 'file', dir: '/srv/raw mail' }],
    ['s3://letters-raw', { kind: 's3', bucket: 'letters-raw', prefix: '' }],
    ['s3://letters-raw/', { kind: 's3', bucket: 'letters-raw', prefix: '' }],
    ['s3://letters-raw/intake/raw/', { kind: 's3', bucket: 'letters-raw', prefix: 'intake/raw/' }],
    ['s3://letters.raw.example/a', { kind: 's3', bucket: 'letters.raw.example', prefix: 'a/' }],
  ])('reads %s', (url, location) => {
    expect(parseRawStoreUrl(url)).toEqual(location);
  });

  it.each([
    ['a path without a scheme', '/var/raw', /file:\/\/\/absolute/],
    ['a relative file URL (host part)', 'file://raw/dir', /three slashes/],
    ['a bucket name with capitals', 's3://Letters/raw', /bucket name/],
    ['credentials in the URL', 's3://key:secret@letters-raw/raw', /credentials/],
    ['a query string', 's3://letters-raw/raw?region=eu', /no query/],
    ['another scheme', 'https://letters-raw.s3.amazonaws.com/raw', /file:\/\/\/absolute/],
  ])('refuses %s', (_what, url, message) => {
    expect(() => parseRawStoreUrl(url)).toThrow(message);
  });

  it('describes a location without anything but the place', () => {
    expect(describeLocation({ kind: 's3', bucket: 'letters-raw', prefix: 'intake/' })).toBe('s3://letters-raw/intake/');
    expect(describeLocation({ kind: 'file', dir: '/srv/raw' })).toBe('file:///srv/raw');
  });
});
