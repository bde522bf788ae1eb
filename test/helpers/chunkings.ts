// The same bytes cut into writes several ways, as a stream may hand them over: code that reads
// a stream must give the same answer however its input was cut.

/** Whole, at random points (pieces of 1 to 200 bytes), and into pieces of 1 to 3 bytes. */
export function chunkings(bytes: Buffer, random: () => number): Buffer[][] {
  const cut = (max: number): Buffer[] => {
    const parts: Buffer[] = [];
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + Math.floor(random() * max);
      parts.push(bytes.subarray(at, at + size));
      at += size;
    }
    return parts;
  };
  return [[bytes], cut(200), cut(3)];
}

/**
 * The same bytes cut several ways, each named for the failure message: whole, 64 KiB writes,
 * random writes, after each LF and before each "-"; byte by byte too when at most `bytewiseMax`.
 */
export function namedChunkings(raw: Buffer, random: () => number, bytewiseMax: number): [string, Buffer[]][] {
  const cutAt = (points: readonly number[]): Buffer[] => {
    const sorted = [...new Set([0, ...points, raw.length])].sort((a, b) => a - b);
    return sorted.slice(1).map((end, i) => raw.subarray(sorted[i], end));
  };
  const every = (size: number): Buffer[] => cutAt(Array.from({ length: Math.ceil(raw.length / size) }, (_, i) => i * size));
  const randomly = (max: number): Buffer[] => {
    const points: number[] = [];
    for (let at = 0; at < raw.length; at += 1 + Math.floor(random() * max)) points.push(at);
    return cutAt(points);
  };
  // after a line break and in front of a dash, at most ~4,000 of them so big messages stay quick
  const edges: number[] = [];
  for (let at = 0; at < raw.length; at += 1) {
    if (raw[at] === 0x0a) edges.push(at + 1);
    if (raw[at] === 0x2d) edges.push(at);
  }
  const keep = Math.min(1, 4000 / Math.max(1, edges.length));
  const ways: [string, Buffer[]][] = [
    ['whole', [raw]],
    ['64 KiB writes', every(65536)],
    ['random writes', randomly(4096)],
    ['cut after LF and before "-"', cutAt(edges.filter(() => random() < keep))],
  ];
  if (raw.length <= bytewiseMax) ways.push(['one byte at a time', every(1)], ['random tiny writes', randomly(8)]);
  return ways;
}
