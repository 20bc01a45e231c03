/**
 * W1 framing: a line ends at an LF byte (0x0A) and nowhere else. Node's `readline` is not usable
 * for this: from Node 24 on it also ends a line at U+2028 and U+2029, which JSON may carry
 * unescaped inside a string (a hostile session key, R1), so a request would be cut in two.
 * Splitting the bytes before decoding keeps every runtime on the same framing.
 */

/** The byte stream a line reader consumes: `process.stdin`, a child's stdout or any Node stream. */
export interface ByteSource {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: string, listener: (...args: any[]) => void): unknown;
}

export interface LineReader {
  /** Stops delivering lines (the stream itself is left to its owner). */
  close(): void;
}

const LF = 0x0a;
const encoder = new TextEncoder();

/**
 * Calls `onLine` with each LF-terminated line of `input` (without the LF), decoded as UTF-8, and
 * `onEnd` once when the input ends (a last line without LF is delivered first). A line that is not
 * valid UTF-8 is delivered with its bad bytes as U+FFFD, so the JSON check that follows refuses it.
 */
export function readLines(input: ByteSource, onLine: (line: string) => void, onEnd?: () => void): LineReader {
  const decoder = new TextDecoder('utf-8');
  let parts: Uint8Array[] = [];
  let closed = false;
  const flush = (last: Uint8Array) => {
    parts.push(last);
    const total = parts.reduce((n, p) => n + p.length, 0);
    const bytes = parts.length === 1 ? parts[0]! : new Uint8Array(total);
    if (parts.length > 1) {
      let at = 0;
      for (const p of parts) {
        bytes.set(p, at);
        at += p.length;
      }
    }
    parts = [];
    onLine(decoder.decode(bytes));
  };
  input.on('data', (chunk: Uint8Array | string) => {
    if (closed) return;
    let bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    for (let i = bytes.indexOf(LF); i >= 0 && !closed; i = bytes.indexOf(LF)) {
      flush(bytes.subarray(0, i));
      bytes = bytes.subarray(i + 1);
    }
    if (bytes.length > 0 && !closed) parts.push(Uint8Array.from(bytes));
  });
  const end = () => {
    if (closed) return;
    if (parts.length > 0) flush(new Uint8Array(0));
    closed = true;
    onEnd?.();
  };
  input.on('end', end);
  input.on('close', end);
  return {
    close: () => {
      closed = true;
    },
  };
}
