// s3rver 3.7 ships no types; only what test/helpers/s3-server.ts uses.
// (A script file, not a module: the `declare module` block is an ambient declaration.)
declare module 's3rver' {
  interface S3rverOptions {
    readonly address?: string;
    readonly port?: number;
    readonly silent?: boolean;
    readonly directory?: string;
    readonly resetOnClose?: boolean;
    readonly configureBuckets?: readonly { readonly name: string }[];
  }
  class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ readonly address: string; readonly port: number }>;
    close(): Promise<void>;
  }
  export default S3rver;
}
