// What housekeeping needs to know about the raw store's blobs from whoever records them: which
// are still pointed at, and whose retention has ended. The intake side implements it in Redis
// (intake/blob-index.ts); the raw store only asks.
export interface BlobIndex {
  /** The keys among `keys` that an existing intake record points at. */
  referenced(keys: readonly string[]): Promise<ReadonlySet<string>>;
  /** Blob keys whose retention ended by `now`, oldest first, at most `limit`. */
  due(now: number, limit: number): Promise<readonly string[]>;
  /** Drops the index entries of deleted blobs. */
  forget(keys: readonly string[]): Promise<void>;
}
