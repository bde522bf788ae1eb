// RCPT TO policy: the gateway is never a relay. Only the configured processing addresses,
// compared case-insensitively (RFC 5321 §2.4 lets us: the domain is ours), are accepted.
// Source routes, percent hacks and quoted local parts never equal a plain configured address.

export function isProcessingAddress(address: string, processingAddresses: readonly string[]): boolean {
  return processingAddresses.includes(address.trim().toLowerCase());
}
