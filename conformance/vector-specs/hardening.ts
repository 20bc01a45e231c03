import { expectedContextKey } from '../facts.js';
import { DAY, HOUR, T0 } from '../script.js';
import { A, ack, advance, ambient, CHILD, COORD, del, drain, ev, human, type In, PARENT, PEER, pending, prune, rec, reset, restart, since, spawn, unwatch, type VectorSpec, version, watch } from './dsl.js';

// ---- trust at the edges (R1, R3, R6, R9a, R23b): hostile keys, opaque ids, field order, clock reads, notice link --

const HOSTILE_KEY_CHARS: [string, string][] = [
  ['U+061C arabic letter mark (Cf, bidi)', '\u061c'],
  ['U+200E left-to-right mark (Cf, bidi)', '\u200e'],
  ['U+202E right-to-left override (Cf, bidi)', '\u202e'],
  ['U+2067 right-to-left isolate (Cf, bidi)', '\u2067'],
  ['U+200B zero width space (Cf)', '\u200b'],
  ['U+200D zero width joiner (Cf)', '\u200d'],
  ['U+FEFF byte order mark (Cf)', '\ufeff'],
  ['U+00AD soft hyphen (Cf)', '\u00ad'],
  ['U+E0041 tag latin capital A (Cf)', '\u{e0041}'],
  ['U+2028 line separator (Zl)', '\u2028'],
  ['U+2029 paragraph separator (Zp)', '\u2029'],
  ['U+0085 next line (Cc)', '\u0085'],
  ['U+00A0 no-break space (Zs)', '\u00a0'],
  ['U+3000 ideographic space (Zs)', '\u3000'],
  ['U+0022 quotation mark', '"'],
  ["U+0027 apostrophe", "'"],
  ['U+201C left double quotation mark', '\u201c'],
  ['U+2019 right single quotation mark', '\u2019'],
  ['U+00AB left guillemet', '\u00ab'],
  ['U+300C left corner bracket', '\u300c'],
  ['U+FF02 fullwidth quotation mark', '\uff02'],
];
const ODD_BUT_FINE = ['agent:main:with space', 'agent:main:日本語', 'agent:main:😀 (x) <y> [z]'];
const OPAQUE_BAD: [string, string][] = [
  ['lone high surrogate', '\ud800'],
  ['lone low surrogate', 'run-\udc00'],
  ['BOM only', '\ufeff'],
  ['BOM prefix', '\ufeffrun-1'],
  ['zero-width only', '\u200b\u200c'],
];

export const HARDENING_VECTORS: VectorSpec[] = [
  {
    name: 'r01-r23-hostile-keys',
    rules: ['R1', 'R9', 'R23'],
    description:
      'Session keys are quoted in a notice a model reads, so R1 rejects (ValidationError naming the field, nothing written) keys with a control, format (Cf: bidi controls incl. U+061C, zero-width characters, BOM, soft hyphen, tags), line or paragraph separator, a space other than U+0020, or a quotation mark of any script: ' +
      HOSTILE_KEY_CHARS.map(([name]) => name).join(', ') +
      '; in record sessionKey, actorId and watchers, watch keys, and positional keys. Keys with spaces, CJK, emoji and brackets are accepted and appear verbatim in the notice text.',
    script: [
      ...HOSTILE_KEY_CHARS.map(([, ch]) => human(`agent:main:a${ch}b`)),
      ...HOSTILE_KEY_CHARS.slice(0, 4).map(([, ch]) => human(CHILD, { actorType: 'agent', actorId: `agent:main:x${ch}` })),
      human(CHILD, { watchers: [COORD, `agent:main:w\u202e`] }),
      watch(`agent:main:w\u061c`, CHILD),
      watch(COORD, `agent:main:t\u201d`, A),
      pending(`agent:main:w\u200b`),
      { op: 'stateVersion', args: [`agent:main:s\ufeff`, A] },
      since(`agent:main:s\u2028`, 0, undefined, A),
      version(CHILD),
      ...ODD_BUT_FINE.flatMap((k) => [watch(COORD, k), human(k)]),
      pending(COORD),
    ],
  },
  {
    name: 'r03-r09-opaque-ids-and-summary',
    rules: ['R1', 'R3', 'R9'],
    description:
      'Lone surrogates, a BOM (alone or as a prefix) and zero-width-only strings are rejected in every opaque id (sessionId, runId, dedupeKey), in actorId and in summary, with a ValidationError naming that field; a whitespace-only summary too. Nothing is written.',
    script: [
      ...['sessionId', 'runId', 'dedupeKey', 'actorId', 'summary'].flatMap((field) => OPAQUE_BAD.map(([, v]) => human(CHILD, { [field]: v }))),
      human(CHILD, { summary: '   ' }),
      rec({ sessionKey: CHILD, agentId: '\ufeffmain', kind: 'human_direct_message', actorType: 'human', summary: 'x' }),
      version(CHILD),
      human(CHILD, { sessionId: 's-1', runId: 'r-1', dedupeKey: 'd-1', summary: 'human message via telegram' }),
    ],
  },
  {
    name: 'r09a-field-order',
    rules: ['R9', 'R9a'],
    description:
      'When several fields are bad the error names the first in this order: a non-object argument is "(input)"; then the schema order of the fields (a missing required field at its own place; the payload against its kind at its place); then the first unknown field; then a payload the kind requires; then the agentId agreement of R1.',
    script: [
      rec(null as unknown as In),
      rec(42 as unknown as In),
      rec('record' as unknown as In),
      rec([] as unknown as In),
      human(CHILD, { sessionKey: '', summary: '' }),
      human(CHILD, { kind: 'nope', summary: '' }),
      human(CHILD, { watchers: [''], runId: '' }),
      rec({ zzz: 1, sessionKey: CHILD, agentId: A, kind: 'human_direct_message', actorType: 'human', summary: '' }),
      rec({ sessionKey: CHILD, agentId: 'other', kind: 'human_direct_message', actorType: 'human', summary: 'x', zzz: 1 }),
      rec({ sessionKey: CHILD, agentId: 'other', kind: 'run_failed', actorType: 'system', summary: 'x' }),
      rec({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'x', payload: { outcome: 'nope' }, dedupeKey: '' }),
      rec({ sessionKey: CHILD, kind: 'human_direct_message', actorType: 'human', summary: '' }),
      { op: 'watch', args: [null] },
      { op: 'watch', args: [{ watcherSessionKey: '', targetSessionKey: 5, agentId: A }] },
      { op: 'watch', args: [{ targetSessionKey: CHILD, agentId: 'other', watcherSessionKey: COORD }] },
      { op: 'changesSince', args: [{ sessionKey: CHILD, agentId: A, since: -1, limit: 0 }] },
      { op: 'changesSince', args: [{ limit: 0, since: 0, agentId: '', sessionKey: CHILD }] },
      { op: 'stateVersion', args: ['', ''] },
      version(CHILD),
    ],
  },
  {
    name: 'r06-which-calls-read-the-clock',
    rules: ['R6'],
    description:
      'With the clock refused (negative), exactly record (even with bad input: the clock is read first), a watch that would write, every drain (also an empty one), prune and restart fail with ClockError; stateVersion, changesSince, pendingNotices, a refused watch (bare watcher, R21), resetSession and deleteSession do not read the clock and succeed.',
    script: [
      spawn(),
      human(),
      advance(-(T0 + 1)),
      human(),
      rec({ sessionKey: '' }),
      watch(COORD, CHILD),
      watch('global', CHILD),
      drain(PARENT),
      drain(COORD),
      prune,
      restart,
      version(CHILD),
      since(CHILD, 0),
      pending(PARENT),
      reset(COORD),
      del(PEER),
      advance(T0 + 1),
      pending(PARENT),
      drain(PARENT),
    ],
  },
  {
    name: 'r23b-notice-link',
    rules: ['R23', 'R23b', 'R24'],
    description:
      'With the opt-in link template, the notice text has "Open: [session](<url>)" between "(other actor)." and "Reconcile", the key and agent percent-encoded into the URL; the text is still a function of (target, lastSeen) only, byte-identical while pending, and the context key is unchanged. Without the option (every other vector) the text is exactly R23.',
    options: { noticeLink: 'https://ui.example/agents/{agentId}/sessions/{sessionKey}?from=notice' },
    script: [
      spawn(),
      human(),
      human(),
      pending(PARENT),
      watch(COORD, 'agent:main:with space/and?query#x'),
      human('agent:main:with space/and?query#x'),
      pending(COORD),
      drain(PARENT),
      human(),
      drain(PARENT),
    ],
  },
  // ---- what an independent implementer, building from PROTOCOL.md alone, could read two ways ----
  {
    name: 'r01-r03-lengths-in-code-points',
    rules: ['R1', 'R3', 'R9'],
    description:
      'Lengths count Unicode code points, as JSON Schema maxLength does: a key of 512 code points is accepted even when 501 of them are astral (1,013 UTF-16 code units), so is one of 300 astral characters; 513 code points is a ValidationError on sessionKey. A summary holds 200 code points (200 astral characters included) and not 201; an opaque id 512.',
    script: [
      human(`agent:main:${'\u{1F600}'.repeat(501)}`),
      version(`agent:main:${'\u{1F600}'.repeat(501)}`),
      version(`agent:main:${'\u{1F600}'.repeat(502)}`),
      human(`agent:main:${'\u{1F600}'.repeat(300)}`),
      human(CHILD, { summary: '\u{1F600}'.repeat(200) }),
      human(CHILD, { summary: '\u{1F600}'.repeat(201) }),
      human(CHILD, { dedupeKey: '\u{1F600}'.repeat(512) }),
      human(CHILD, { dedupeKey: '\u{1F600}'.repeat(513) }),
      human(CHILD, { runId: 'x'.repeat(513) }),
      version(CHILD),
    ],
  },
  {
    name: 'r06-clock-upper-bound',
    rules: ['R6', 'R43'],
    description:
      'A clock reading above 2^53 - 1 (the largest time an event can hold) is refused with ClockError like a negative one, by every call that reads the clock; 2^53 - 1 itself is a valid reading (occurredAt is clamped to it), and a read that does not need the clock still answers.',
    script: [
      human(),
      advance(Number.MAX_SAFE_INTEGER - T0),
      human(CHILD, { occurredAt: 0 }),
      advance(1),
      human(),
      drain(PARENT),
      prune,
      restart,
      version(CHILD),
      advance(-1),
      since(CHILD, 0),
    ],
  },
  {
    name: 'r06-clock-bare-drain-and-rewatch',
    rules: ['R6', 'R21b', 'R27', 'R27b'],
    description:
      'With the clock refused, a drain or an ack reads it whatever the watcher (a bare one, which can hold no notice, too) and whether or not anything matches; an accepted watch reads it even when it then writes nothing (an ambient re-registration, R21b); a watch R21 refuses and unwatch do not read it.',
    script: [
      ambient(COORD, CHILD),
      advance(-(T0 + 1)),
      drain('global'),
      { op: 'ackNotices', args: ['global', []] },
      { op: 'ackNotices', args: [COORD, []] },
      ambient(COORD, CHILD),
      watch(CHILD, CHILD),
      unwatch(COORD, PEER),
      advance(T0 + 1),
      unwatch(COORD, CHILD),
    ],
  },
  {
    name: 'r14-no-self-seed',
    rules: ['R14', 'R11', 'R9b'],
    description:
      'A child_spawned that names its own session among the watchers seeds no cursor of the session on itself (R14 seeds only watchers other than the event\'s key, as R11 does), so the session stays unwatched for onlyIfWatched (R9b); the other watcher is seeded as usual.',
    script: [
      rec({ sessionKey: PEER, agentId: A, kind: 'child_spawned', actorType: 'agent', actorId: PEER, runId: 'r1', summary: 'child session spawned', watchers: [PEER] }),
      human(PEER, { onlyIfWatched: true }),
      version(PEER),
      rec({ sessionKey: PEER, agentId: A, kind: 'child_spawned', actorType: 'agent', actorId: PARENT, runId: 'r2', summary: 'child session spawned', watchers: [PEER, PARENT] }),
      human(PEER, { onlyIfWatched: true }),
      pending(PARENT),
      pending(PEER),
    ],
  },
  {
    name: 'r24-r27b-context-key-edges',
    rules: ['R24', 'R27b', 'R9'],
    description:
      'A store writes context keys in lowercase; decoding reads the whole key case-insensitively (prefix and hex digits), so an ack quoting it in uppercase names the same pair and acks it. A key with an empty segment, an odd number of digits or a foreign prefix names no pair and acks nothing. A contextKey longer than 4,096 characters is a ValidationError on notices.<i>.contextKey (NoticeAcks), not a foreign key.',
    script: [
      watch(COORD, PEER),
      human(PEER),
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state::6167656e743a6d61696e3a70656572', lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state:6d61696e:', lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state:6d61696e:6167656e743a6d61696e3a7065657', lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: `session-state:6d61696e:${'61'.repeat(2100)}`, lastSeenSequence: 0 }]] },
      pending(COORD),
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state:6D61696E:6167656E743A6D61696E3A70656572', lastSeenSequence: 0 }]] },
      watch(COORD, CHILD),
      human(CHILD),
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'SESSION-STATE:6D61696E:6167656E743A6D61696E3A7375626167656E743A6368696C64', lastSeenSequence: 0 }]] },
      pending(COORD),
    ],
  },
  {
    name: 'r09a-payload-and-call-field-order',
    rules: ['R9', 'R9a', 'R4', 'R1', 'R52', 'R27b', 'R21b'],
    description:
      'Inside a payload the error names, in this order: a missing required field (in its schema\'s order), then the first unknown field (in the payload\'s own key order), then the first bad value (in schema order). watch checks provenance after agentId; unwatch checks its fields in schema order and then R1\'s agent agreement; an ackNotices entry checks contextKey before lastSeenSequence, and ignores other fields.',
    script: [
      rec({ sessionKey: CHILD, agentId: A, kind: 'adopted', actorType: 'system', summary: 'x', payload: { catalogId: 5, zzz: 1 } }),
      rec({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'x', payload: { zzz: 1, outcome: 'nope' } }),
      human(CHILD, { payload: { turns: 0, channel: 5 } }),
      human(CHILD, { payload: { b: 1, a: 1 } }),
      { op: 'watch', args: [{ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: 5, provenance: 'loud' }] },
      { op: 'watch', args: [{ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A, provenance: 'loud' }] },
      { op: 'unwatch', args: [{ agentId: 'other', targetSessionKey: '', watcherSessionKey: '' }] },
      { op: 'unwatch', args: [{ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: 'ops' }] },
      { op: 'unwatch', args: [{ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A, provenance: 'explicit' }] },
      { op: 'ackNotices', args: [COORD, [{ lastSeenSequence: -1, contextKey: 5 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'session-state:6d61696e:61', lastSeenSequence: 0, wake: 'immediate', extra: 1 }]] },
      version(CHILD),
    ],
  },
  {
    name: 'r23b-template-edges',
    rules: ['R23b', 'R23'],
    description:
      'Beyond its scheme, characters and length nothing in a noticeLink template is parsed: no host is required, a % is kept as written, every occurrence of {sessionKey} and {agentId} is replaced (percent-encoded as encodeURIComponent does), and other brace text, an unclosed placeholder included, stays as written.',
    options: { noticeLink: "https:///{agentId}/%zz/{other}/{sessionKey}-{sessionKey}?q='{agentId}'&p={sessionKey" },
    script: [watch(COORD, "agent:main:a {x} 100%"), human("agent:main:a {x} 100%"), pending(COORD)],
  },
  {
    name: 'r24-ascii-case-only',
    rules: ['R24', 'R27b'],
    description:
      'A context key decodes case-insensitively in ASCII only: SESSION-STATE with uppercase hex names the same pair and acks it, while a key whose prefix holds ſ (U+017F, which Unicode case folding turns into s) is foreign and acks nothing.',
    script: [
      watch(COORD, PEER),
      watch(COORD, CHILD),
      human(PEER),
      human(CHILD),
      { op: 'ackNotices', args: [COORD, [{ contextKey: expectedContextKey(A, PEER).replace('session-state', 'ſeſſion-ſtate'), lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: expectedContextKey(A, CHILD).toUpperCase(), lastSeenSequence: 0 }]] },
      pending(COORD),
    ],
  },
  {
    name: 'r27b-context-key-length-in-code-points',
    rules: ['R27b', 'R1', 'R9'],
    description:
      'An ack\'s contextKey is bad input past 4,096 code points, counted as R1 counts (not UTF-16 code units): 4,096 astral characters (8,192 code units) are a foreign key that acks nothing, 4,097 of them, or 4,097 ASCII characters, a ValidationError on notices.0.contextKey.',
    script: [
      watch(COORD, PEER),
      human(PEER),
      { op: 'ackNotices', args: [COORD, [{ contextKey: '\u{1F600}'.repeat(4096), lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: '\u{1F600}'.repeat(4097), lastSeenSequence: 0 }]] },
      { op: 'ackNotices', args: [COORD, [{ contextKey: 'a'.repeat(4097), lastSeenSequence: 0 }]] },
      pending(COORD),
    ],
  },
  {
    name: 'r16-passed-and-self',
    rules: ['R16', 'R12', 'R21'],
    description:
      'What a terminal run notifies is decided by the cursor: a producer-passed watcher that also holds an explicit cursor is notified once, by that cursor; and R12 holds, so an explicit watcher that is itself the actor of the terminal run is not.',
    script: [
      watch(COORD, CHILD),
      ev(CHILD, 'run_completed', { actorType: 'system', watchers: [COORD] }),
      pending(COORD),
      drain(COORD),
      ev(CHILD, 'run_failed', { actorType: 'agent', actorId: COORD, payload: { outcome: 'error' } }),
      pending(COORD),
    ],
  },
  {
    name: 'r43-dedupe-hit-at-real-limits',
    rules: ['R43', 'R8', 'R40'],
    description:
      'At the real limits (30 days): a record whose dedupe key is retained changes nothing and does not prune, even a month later, so the next replay of the key is still a hit; the next insert prunes, and only then is the key free again. (Learned from the OpenClaw run: an implementation without per-store limits is judged here too.)',
    script: [human(PEER, { dedupeKey: 'd1' }), advance(30 * DAY + 1), human(PEER, { dedupeKey: 'd1' }), human(PEER, { dedupeKey: 'd1' }), since(PEER, 0), human(CHILD), since(PEER, 0), human(PEER, { dedupeKey: 'd1' })],
  },
  {
    name: 'r01-watchers-differ-by-case',
    rules: ['R1', 'R20', 'R24', 'R27'],
    description:
      'Keys are compared exactly (R1): two watchers whose keys differ only in case are two sessions, each with its own cursor and notice, and a drain by one takes nothing of the other. (Learned from the OpenClaw run, whose notice queue folds case.)',
    script: [watch('agent:main:Lead', PEER), watch('agent:main:lead', CHILD), human(PEER), pending('agent:main:lead'), drain('agent:main:lead'), pending('agent:main:Lead'), drain('agent:main:Lead')],
  },
  {
    name: 'r43-no-prune-on-dedupe-hit',
    rules: ['R43', 'R8', 'R33'],
    description:
      'Pruning happens only where R43 says: a dedupe hit, a record skipped by onlyIfWatched, reads and acks do not prune, even when the interval has passed and the log is over its cap, so historyGap stays false until the next successful insert prunes.',
    options: { maxRows: 2 },
    script: [
      human(CHILD, { dedupeKey: 'd1' }),
      human(CHILD),
      human(CHILD),
      advance(2 * HOUR),
      human(CHILD, { dedupeKey: 'd1' }),
      human('agent:main:unwatched', { onlyIfWatched: true }),
      drain(PARENT),
      since(CHILD, 0),
      human(PEER),
      since(CHILD, 0),
    ],
  },
];
