// Offline stand-in for https://deno.land/std@0.186.0/io/mod.ts, which dspy's runner.js imports only for
// `readLines`. Same contract as std's: an async iterator of the lines of a Deno.Reader, without the "\n"
// (or "\r\n"), the last line yielded even without a trailing newline. Reads 4 KiB at a time like std's
// BufReader, and concatenates a long line's chunks once, so a 50 MB line is not quadratic.
export async function* readLines(
  reader: { read(p: Uint8Array): Promise<number | null> },
  decoderOpts?: { encoding?: string; fatal?: boolean; ignoreBOM?: boolean },
): AsyncIterableIterator<string> {
  const decoder = new TextDecoder(decoderOpts?.encoding, decoderOpts);
  const buf = new Uint8Array(4096);
  let pending: Uint8Array[] = [];
  const flush = (tail: Uint8Array): string => {
    pending.push(tail);
    const total = pending.reduce((n, c) => n + c.length, 0);
    const line = new Uint8Array(total);
    let at = 0;
    for (const c of pending) { line.set(c, at); at += c.length; }
    pending = [];
    const end = total > 0 && line[total - 1] === 13 ? total - 1 : total; // drop a "\r" before the "\n"
    return decoder.decode(line.subarray(0, end));
  };
  while (true) {
    const n = await reader.read(buf);
    if (n === null) break;
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl !== -1 && nl < n; nl = buf.indexOf(10, start)) {
      yield flush(buf.slice(start, nl));
      start = nl + 1;
    }
    if (start < n) pending.push(buf.slice(start, n));
  }
  if (pending.length > 0) yield flush(new Uint8Array(0));
}
