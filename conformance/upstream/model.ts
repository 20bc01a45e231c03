/**
 * Independent models of the U rules, written without the implementation's code, used as the
 * expected side of the upstream properties and of the generated vectors.
 */
import fc from 'fast-check';

/** U4 normal form, computed differently from the implementation (split/join instead of replace/trim). */
export function modelNormalize(text: string): string {
  return text
    .normalize('NFC')
    .split(/\s+/u)
    .filter((w) => w.length > 0)
    .join(' ');
}

/** U4: how many upstream turns are human and how many are echoes of the last 10 own messages. */
export function modelEcho(own: readonly string[], upstream: readonly string[], window = 10): { human: number; echo: number } {
  const set = new Set(own.slice(Math.max(0, own.length - window)).map(modelNormalize).filter((s) => s !== ''));
  let human = 0;
  let echo = 0;
  for (const t of upstream) {
    const n = modelNormalize(t);
    if (n !== '' && set.has(n)) echo++;
    else human++;
  }
  return { human, echo };
}

export type MissStep = 'missing' | 'found' | 'inconclusive' | 'error' | 'continue';

/** U2/U3: what a sequence of checks and Continues must produce. */
export function modelMissStreak(steps: readonly MissStep[], limit = 3): { upstreamMissing: number; linked: boolean; checks: number; missCount: number } {
  let linked = true;
  let count = 0;
  let events = 0;
  let checks = 0;
  for (const s of steps) {
    if (s === 'continue') {
      linked = true;
      count = 0;
      continue;
    }
    if (!linked) continue;
    checks++;
    if (s === 'missing') {
      count++;
      if (count === limit) {
        events++;
        linked = false;
        count = 0;
      }
    } else if (s === 'found') count = 0;
  }
  return { upstreamMissing: events, linked, checks, missCount: count };
}

export type WatchStep = 'turn' | 'tick' | 'watch' | 'unwatch';

export interface WatchGapResult {
  /** Human turns per recorded human_direct_message, in order. */
  events: number[];
  /** Per watcher, in the order the `watch` steps created them: the L of its pending notice, or null. */
  notices: (number | null)[];
}

/**
 * U5 Decision, R22: one adopted session. `turn` = a person types upstream; `watch` = a new
 * watcher registers; `unwatch` = every current watcher's watches end (R50 reset); `tick` = one
 * check. A check reads every turn since the marker and moves the marker past them; it records one
 * event (all of them) iff someone watches when it reads, and otherwise records nothing. A watcher
 * is seeded at the target's version when it registers, so its one pending notice (R24) quotes that
 * seed and exists iff an event was recorded after it registered and it still watches.
 */
export function modelWatchGaps(steps: readonly WatchStep[]): WatchGapResult {
  let appended = 0;
  let marker = 0;
  let version = 0;
  const events: number[] = [];
  const watchers: { seed: number; active: boolean; notice: number | null }[] = [];
  for (const s of steps) {
    if (s === 'turn') appended++;
    else if (s === 'watch') watchers.push({ seed: version, active: true, notice: null });
    else if (s === 'unwatch') {
      for (const w of watchers) {
        w.active = false;
        w.notice = null; // R50: the watcher's cursors and queued notices go with its lifecycle
      }
    } else {
      const pending = appended - marker;
      marker = appended;
      const active = watchers.filter((w) => w.active);
      if (pending === 0 || active.length === 0) continue;
      events.push(pending);
      version++;
      for (const w of active) w.notice ??= w.seed;
    }
  }
  return { events, notices: watchers.map((w) => w.notice) };
}

/** A transcript line the generators produce, tagged with what it is. */
export interface TaggedLine {
  line: string;
  human?: string;
}

/** U6, simplified to the generator's alphabet: human iff a non-meta, non-sidechain user line whose content is a non-blank string. */
export function modelIsHuman(line: string): string | undefined {
  try {
    const v = JSON.parse(line) as { type?: unknown; isMeta?: unknown; isSidechain?: unknown; message?: { content?: unknown } };
    if (v && v.type === 'user' && v.isMeta !== true && v.isSidechain !== true && typeof v.message?.content === 'string' && v.message.content.trim() !== '') return v.message.content;
  } catch {
    /* not JSON: not human */
  }
  return undefined;
}

export interface CursorCheck {
  offset: number;
  humanTexts: string[];
  /** A line longer than the scan limit starts at `offset`; this many of its bytes were read. */
  long?: number;
}

/**
 * U6 byte cursor over a growing file: `actions` are appends (bytes) and checks. Each check reads
 * at most maxBytes from the cursor and takes complete lines only. A full read with no newline
 * starts a long line at the cursor: later checks read it on, 2 * maxBytes at a time, and the
 * check that reaches its newline classifies it whole, then the complete lines after it in the
 * same read.
 */
export function modelCursor(actions: readonly ({ append: Uint8Array } | { check: true })[], maxBytes: number): CursorCheck[] {
  let content = new Uint8Array(0);
  let offset = 0;
  let long: number | undefined;
  const out: CursorCheck[] = [];
  const decoder = new TextDecoder();
  const human = (bytes: Uint8Array) =>
    decoder
      .decode(bytes)
      .split('\n')
      .map(modelIsHuman)
      .filter((t): t is string => t !== undefined);
  for (const a of actions) {
    if ('append' in a) {
      const next = new Uint8Array(content.length + a.append.length);
      next.set(content);
      next.set(a.append, content.length);
      content = next;
      continue;
    }
    const texts: string[] = [];
    let from = offset;
    let budget = maxBytes;
    if (long !== undefined) {
      const read = content.subarray(offset + long, Math.min(content.length, offset + long + 2 * maxBytes));
      const nl = read.indexOf(10);
      if (nl < 0) {
        long += read.length;
        out.push({ offset, humanTexts: [], long });
        continue;
      }
      texts.push(...human(content.subarray(offset, offset + long + nl)));
      from = offset + long + nl + 1;
      budget = read.length - nl - 1;
      long = undefined;
      const rest = content.subarray(from, from + budget);
      const last = rest.lastIndexOf(10);
      if (last >= 0) {
        texts.push(...human(rest.subarray(0, last)));
        from += last + 1;
      }
      offset = from;
      out.push({ offset, humanTexts: texts });
      continue;
    }
    const window = content.subarray(offset, Math.min(content.length, offset + budget));
    const last = window.lastIndexOf(10);
    if (last < 0) {
      if (window.length >= maxBytes) {
        long = window.length;
        out.push({ offset, humanTexts: [], long });
      } else out.push({ offset, humanTexts: [] });
      continue;
    }
    texts.push(...human(window.subarray(0, last)));
    offset += last + 1;
    out.push({ offset, humanTexts: texts });
  }
  return out;
}

// ---- generators -------------------------------------------------------------------------------

const RESERVED = ['<local-command-', '<bash-std', '[Request interrupted by user'];

/** Text a person might type: any graphemes (multi-byte included), not blank. */
export const humanText = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
  .filter((s) => s.trim() !== '' && !RESERVED.some((r) => s.trimStart().startsWith(r)));

export const userLine = (text: string, ts = '2026-01-01T00:00:00.000Z'): string =>
  JSON.stringify({ type: 'user', isSidechain: false, message: { role: 'user', content: text }, timestamp: ts });

/** A complete transcript line (without its newline), human or not. */
export const taggedLine: fc.Arbitrary<TaggedLine> = fc.oneof(
  { weight: 4, arbitrary: humanText.map((t) => ({ line: userLine(t), human: t })) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map((t) => ({ line: JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: t }] } }) })) },
  { weight: 1, arbitrary: fc.constant({ line: JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'out' }] }, toolUseResult: {} }) }) },
  { weight: 1, arbitrary: humanText.map((t) => ({ line: JSON.stringify({ type: 'user', isMeta: true, message: { role: 'user', content: t } }) })) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }).filter((s) => !s.includes('\n') && modelIsHuman(s) === undefined).map((line) => ({ line })) },
);

/** Bytes of `lines` (each newline-terminated) cut into append chunks at arbitrary byte offsets. */
export function chunked(lines: readonly string[], cuts: readonly number[]): Uint8Array[] {
  const bytes = new TextEncoder().encode(lines.map((l) => `${l}\n`).join(''));
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let start = 0;
  for (const p of points) {
    out.push(bytes.subarray(start, p));
    start = p;
  }
  out.push(bytes.subarray(start));
  return out;
}

/** Spellings of `text` that transport may produce: reflowed whitespace, NFD, padding. */
export function perturb(text: string, how: number): string {
  switch (how % 4) {
    case 0:
      return `  ${text}\n`;
    case 1:
      return text.replace(/ /g, ' \t ');
    case 2:
      return text.normalize('NFD');
    default:
      return text.split(' ').join('\n\n');
  }
}
