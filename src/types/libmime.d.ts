// The part of libmime's API this project uses (the package ships no types).
declare module 'libmime' {
  const libmime: {
    /** Decodes RFC 2047 encoded words in a header value. */
    decodeWords(value: string): string;
    /** Splits one (possibly folded) header line into its lower-cased key and trimmed value. */
    decodeHeader(line: string): { key: string; value: string };
    /** The media type for a file name's extension; application/octet-stream when unknown. */
    detectMimeType(fileName: string): string;
    /** Folds a header line at white space to at most `lineLength` characters per line. */
    foldLines(value: string, lineLength: number): string;
  };
  export default libmime;
}
