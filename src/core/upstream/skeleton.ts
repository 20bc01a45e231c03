/** Decodes a line's bytes; the adapter passes the host's UTF-8 decoder (the core has none). */
export type Utf8Decode = (bytes: Uint8Array) => string;

/**
 * U6: a JSON reader for transcript lines too long to hold (a pasted screenshot, an image tool
 * result: tens of MiB of base64 on one line). It is fed the line in pieces, across checks, and
 * keeps a bounded *skeleton*: every key and structure, strings cut to a budget. Classification
 * needs the small fields (`type`, `origin.kind`, block types, `isMeta`, ...) and the typed text
 * at most, never the base64 data, so the skeleton classifies like the whole record.
 */
export interface SkeletonLimits {
  /** Longest string kept whole (bytes of its JSON form). */
  stringBytes: number;
  /** Bytes of strings kept in total; past it, strings keep `smallString` bytes only. */
  totalBytes: number;
  /** Always kept, so short fields survive an exhausted budget. */
  smallString: number;
  /** Deeper values are parsed but not kept. */
  maxDepth: number;
  /** Array elements kept per array. */
  maxItems: number;
  /** Values kept in total (properties and elements); later ones are parsed but not kept. Default 16,384. */
  maxValues?: number;
}

/** U6: the default skeleton budgets (64 KiB per string, 256 KiB of strings, depth 32, 2048 items per array). */
export const DEFAULT_SKELETON_LIMITS: SkeletonLimits = { stringBytes: 64 * 1024, totalBytes: 256 * 1024, smallString: 256, maxDepth: 32, maxItems: 2048, maxValues: 16 * 1024 };

/** U6: what a SkeletonParser produced: whether the line was one JSON value and, if so, its skeleton. */
export interface SkeletonResult {
  ok: boolean;
  value?: unknown;
  /** Some string or array was cut; U4 compares a cut text as a prefix. */
  truncated: boolean;
}

type Frame =
  | { t: 'obj'; v: Record<string, unknown> | undefined; key: string | undefined; s: 'key' | 'colon' | 'value' | 'comma' }
  | { t: 'arr'; v: unknown[] | undefined; s: 'value' | 'comma' };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** U6: an incremental JSON parser fed a long line in pieces that keeps only a bounded skeleton of the value. */
export class SkeletonParser {
  private readonly stack: Frame[] = [];
  private root: unknown = undefined;
  private done = false;
  private failed = false;
  private truncated = false;
  private retained = 0;
  private values = 0;
  private readonly maxValues: number;
  // string state (escaped, strChunks, strKept and strCut are back at these values whenever a string ends)
  private inString = false;
  private escaped = false;
  private strChunks: Uint8Array[] = [];
  private strKept = 0;
  private strCap = 0;
  private strCut = false;
  // Where the next backslash of the piece being pushed is (-1: none left, -2: not searched yet).
  // Kept across the strings of one push, so a piece of many short strings is searched once, not
  // once per string; dropped when the push ends (it must not keep the piece alive).
  private piece: Uint8Array | undefined;
  private nextBackslash = -2;
  // literal state (numbers, true, false, null)
  private literal: number[] | undefined;

  constructor(
    private readonly decode: Utf8Decode,
    private readonly limits: SkeletonLimits = DEFAULT_SKELETON_LIMITS,
  ) {
    this.maxValues = limits.maxValues ?? DEFAULT_SKELETON_LIMITS.maxValues!;
  }

  /** Bytes of strings held now (the memory bound the bench and tests check). */
  retainedBytes(): number {
    return this.retained + this.strKept;
  }

  /** Feeds the next piece of the line's bytes. */
  push(bytes: Uint8Array): void {
    this.piece = bytes;
    this.nextBackslash = -2;
    try {
      this.pushPiece(bytes);
    } finally {
      this.piece = undefined;
    }
  }

  private pushPiece(bytes: Uint8Array): void {
    let i = 0;
    const n = bytes.length;
    while (i < n && !this.failed) {
      if (this.inString) {
        i = this.stringBytes(bytes, i);
        continue;
      }
      const b = bytes[i]!;
      if (this.literal) {
        if ((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7a) || b === 0x2b || b === 0x2d || b === 0x2e || b === 0x45) {
          if (this.literal.length < 64) this.literal.push(b);
          i++;
          continue;
        }
        this.endLiteral();
        continue; // re-read b as structure
      }
      i++;
      if (isSpace(b)) continue;
      if (this.done) {
        this.failed = true; // trailing garbage
        break;
      }
      this.structural(b);
    }
  }

  /** Ends the line: the skeleton if the bytes were one complete JSON value, else `ok: false`. */
  end(): SkeletonResult {
    // A pending literal means nothing failed yet (every failure happens outside a literal).
    if (this.literal) this.endLiteral();
    // An open string means no value is done yet.
    if (this.failed || !this.done) return { ok: false, truncated: this.truncated };
    return { ok: true, value: this.root, truncated: this.truncated };
  }

  /**
   * Whether a value starting now is kept: within maxDepth (an unkept container sits deeper, so
   * everything in it does too) and while fewer than maxValues are kept. The value budget is what
   * bounds memory for a line of any length: a line of a million tiny keys keeps the first ones.
   */
  private depthKeeps(): boolean {
    if (this.values >= this.maxValues) {
      this.truncated = true;
      return false;
    }
    return this.stack.length <= this.limits.maxDepth;
  }

  private structural(b: number): void {
    const top = this.stack[this.stack.length - 1];
    if (top?.t === 'obj') {
      if (top.s === 'key' && b === QUOTE) return this.beginString();
      if (top.s === 'colon' && b === 0x3a) {
        top.s = 'value';
        return;
      }
      if (top.s === 'comma') {
        if (b === 0x2c) {
          top.s = 'key';
          return;
        }
        if (b === 0x7d) return this.close();
        this.failed = true;
        return;
      }
      if (top.s !== 'value') {
        // `}` where a key may start closes the object: `{}` (and a trailing comma); anything else is malformed
        if (!(b === 0x7d && top.s === 'key')) this.failed = true;
        else this.close();
        return;
      }
    } else if (top?.t === 'arr') {
      if (top.s === 'comma') {
        if (b === 0x2c) {
          top.s = 'value';
          return;
        }
        if (b === 0x5d) return this.close();
        this.failed = true;
        return;
      }
      if (b === 0x5d) return this.close(); // `[]` (a trailing comma is tolerated)
    }
    // a value starts
    if (b === QUOTE) return this.beginString();
    if (b === 0x7b) {
      this.stack.push({ t: 'obj', v: this.depthKeeps() ? {} : undefined, key: undefined, s: 'key' });
      return;
    }
    if (b === 0x5b) {
      this.stack.push({ t: 'arr', v: this.depthKeeps() ? [] : undefined, s: 'value' });
      return;
    }
    if ((b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x74 || b === 0x66 || b === 0x6e) {
      this.literal = [b];
      return;
    }
    this.failed = true;
  }

  private beginString(): void {
    this.inString = true;
    const room = Math.max(this.limits.smallString, Math.min(this.limits.stringBytes, this.limits.totalBytes - this.retained));
    this.strCap = this.depthKeeps() ? room : 0;
  }

  /** Consumes string bytes from `i`; returns the next index. Finds the quote with native search. */
  private stringBytes(bytes: Uint8Array, i: number): number {
    let j = i;
    const n = bytes.length;
    // Cached positions (-1: none left in this piece), so text full of escapes stays linear.
    let q = -2;
    let bs = this.piece === bytes ? this.nextBackslash : -2;
    while (j < n) {
      if (this.escaped) {
        this.escaped = false;
        j++;
        continue;
      }
      if (q !== -1 && q < j) q = bytes.indexOf(QUOTE, j);
      if (bs !== -1 && bs < j) bs = bytes.indexOf(BACKSLASH, j);
      if (this.piece === bytes) this.nextBackslash = bs;
      if (bs >= 0 && (q < 0 || bs < q)) {
        j = bs + 1;
        this.escaped = true;
        continue;
      }
      if (q < 0) {
        j = n;
        break;
      }
      this.keep(bytes.subarray(i, q));
      this.inString = false;
      this.endString();
      return q + 1;
    }
    this.keep(bytes.subarray(i, j));
    return j;
  }

  private keep(part: Uint8Array): void {
    const room = this.strCap - this.strKept;
    if (part.length > room) this.strCut = true;
    const take = Math.min(room, part.length);
    if (take === 0) return;
    // A copy, never a view: a view (Buffer#slice is one, even when empty) keeps the whole read
    // it came from alive, so a long line would stay in memory at its full length.
    this.strChunks.push(Uint8Array.prototype.slice.call(part, 0, take));
    this.strKept += take;
  }

  private endString(): void {
    // (A closing quote is found only outside an escape, so `escaped` is already false here.)
    const raw = new Uint8Array(this.strKept);
    let at = 0;
    for (const c of this.strChunks) {
      raw.set(c, at);
      at += c.length;
    }
    this.strChunks = [];
    const cut = this.strCut;
    this.strCut = false;
    let text = this.decode(raw);
    if (cut) {
      this.truncated = true;
      // A cut may end inside an escape: drop an unfinished `\`, `\uXX` tail before decoding.
      const tail = /\\(?:u[0-9a-fA-F]{0,3})?$/u.exec(text);
      if (tail) {
        const before = text.slice(0, tail.index);
        const slashes = /\\*$/u.exec(before)![0].length;
        if (slashes % 2 === 0) text = before;
      }
    }
    let value: string;
    try {
      value = JSON.parse(`"${text}"`) as string;
    } catch {
      value = text;
    }
    this.retained += this.strKept;
    this.strKept = 0;
    const top = this.stack[this.stack.length - 1];
    if (top?.t === 'obj' && top.s === 'key') {
      top.key = value;
      top.s = 'colon';
      return;
    }
    this.value(value);
  }

  private endLiteral(): void {
    const chars = String.fromCharCode(...this.literal!);
    this.literal = undefined;
    let v: unknown;
    if (chars === 'true') v = true;
    else if (chars === 'false') v = false;
    else if (chars === 'null') v = null;
    else {
      const num = Number(chars);
      if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/u.test(chars) || !Number.isFinite(num)) {
        this.failed = true;
        return;
      }
      v = num;
    }
    this.value(v);
  }

  /**
   * A value ended. structural() starts a value only where one may stand (an object after its
   * key's colon, an array at a value position, the top level), and nothing changes the stack
   * while a value is read, so the frame on top is in its value state here.
   */
  private value(v: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.root = v;
      this.done = true;
      return;
    }
    if (top.t === 'obj') {
      // Own property, like JSON.parse: a `__proto__` key must not become the object's prototype
      // (a transcript line could otherwise make `isMeta` or `type` appear through inheritance).
      if (top.v && this.values < this.maxValues) {
        Object.defineProperty(top.v, top.key!, { value: v, enumerable: true, writable: true, configurable: true });
        this.values++;
      } else if (top.v) this.truncated = true;
      top.key = undefined;
      top.s = 'comma';
      return;
    }
    if (top.v) {
      if (top.v.length < this.limits.maxItems && this.values < this.maxValues) {
        top.v.push(v);
        this.values++;
      } else this.truncated = true;
    }
    top.s = 'comma';
  }

  /** Called only where a closer is allowed (an object expecting a key or a comma, an array at a value or comma). */
  private close(): void {
    const frame = this.stack.pop()!;
    this.value(frame.v);
  }
}
