// Tiny documents of each type a receipt or an invoice may carry, by their signature bytes only
// (the sandbox judges the type by the first bytes), and request bodies built from them.

export const SAMPLE_BYTES = {
  pdf: Buffer.from('%PDF-1.4\n% receipt\n%%EOF\n', 'latin1'),
  png: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR-not-a-real-image')]),
  jpeg: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('JFIF-not-a-real-image')]),
  webp: Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8 not-a-real-image', 'latin1')]),
  text: Buffer.from('just some text, not a document\n'),
} as const;

export function samplePart(kind: keyof typeof SAMPLE_BYTES, fileName: string): Record<string, string> {
  return { fileName, base64Data: SAMPLE_BYTES[kind].toString('base64') };
}

/** An end user's id in the service (the contract's endUserServiceId). */
export const END_USER_SERVICE_ID = '0b6c2f6e-1c1a-4d8e-9a57-3e2f1d0c4b5a';

/** A receipt as the contract writes it, with only what it requires: a reference, an end user, a line. */
export function receiptBody(overrides: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    reference: 'R-0004',
    endUserServiceId: END_USER_SERVICE_ID,
    lineItems: [{ description: 'Coffee', unitPrice: 10 }],
    ...overrides,
  };
}
