// CLAMD_URL, parsed: where clamd listens, on TCP (`tcp://host:port`) or a Unix socket (`unix:/path`). Pure.

export type ClamdAddress =
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number }
  | { readonly kind: 'unix'; readonly path: string };

/** `tcp://host:port` or `unix:/path`; throws a message naming the form expected. */
export function parseClamdUrl(url: string): ClamdAddress {
  if (url.startsWith('unix:')) {
    const path = url.slice('unix:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path.startsWith('/')) throw new Error('a unix: address needs an absolute path (unix:/run/clamav/clamd.ctl)');
    return { kind: 'unix', path };
  }
  const match = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):(\d{1,5})\/?$/.exec(url);
  const port = Number(match?.[2]);
  if (match?.[1] === undefined || !(port >= 1 && port <= 65_535)) {
    throw new Error('must be tcp://host:port or unix:/path/to/clamd.socket');
  }
  return { kind: 'tcp', host: match[1].replace(/^\[|\]$/g, ''), port };
}

/** The address for logs and doctor output. */
export function describeClamd(address: ClamdAddress): string {
  return address.kind === 'unix' ? `unix:${address.path}` : `tcp://${address.host}:${address.port}`;
}
