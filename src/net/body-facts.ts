// What the MIME walk keeps of one attachment's body: its decoded length and first bytes, fed
// chunk by chunk as DATA arrives.

export interface BodyFacts {
  readonly firstBytes: Buffer;
  readonly decodedBytes: number;
}

export interface BodyCounter {
  write(chunk: Buffer): Promise<void>;
  end(): Promise<BodyFacts>;
}
