import type { Limit } from './lib/report.js';

/**
 * CI limits for `npm run bench:smoke` (`--check`). Ratios only (adapter ops/s over its baseline's
 * ops/s, from medians of the same run), never absolute times: a slow or busy CI machine slows
 * both sides. Each floor is about half the lowest ratio seen in four smoke runs on a shared,
 * loaded 2-core VM (AMD EPYC, load average 4-7, 2026-12-02), lower still where a case takes only
 * four samples per side. They catch a change of kind (a table scan, a statement per row where
 * there was one per call, a leak), not a few percent. Every id here exists in both modes.
 * Raise a floor only from a reference run's figures, with the same margin. The append and
 * prune-cap floors were re-derived on 2026-12-02 after schema step 2 (no per-append row counter)
 * from two full runs, two `--filter append` runs and one smoke run on the same VM. Raised on
 * 2026-12-03 from the reference run bench/results/reference-2026-12-03.json and the
 * smoke runs of that day (load 6-10), each about half of the lower of the two. The memory-store and
 drain floors were raised again that evening from the evening reference run and an idle
 smoke run, about half of the lower. The 10- and 100-watcher append floors were raised on
 2026-12-04 after schema step 7, from bench/results/reference-2026-12-04.json and a smoke run.
 The prune, drain and pending floors were raised later that day from reference-2026-12-04b.json
 and a smoke run, about half of the lower, after the per-row upsert stamp, the array reads and
 the benchmarks' setup fix (each side now writes its setup through the connection it is timed on).
 The append, recordMany, memory-store and age-prune floors were raised again that day from
 reference-2026-12-04d.json and -e.json (the same code, 25 minutes apart) and a smoke run, about
 half of the lowest; ratios against the single-commit baseline move with that commit's speed (24 to
 46 us over the day's runs), so those floors keep half of the lowest run of the day. The 10k-row
 prune floors and the 10-pair drain floor were lowered that afternoon to about half of what
 reference-2026-12-04g.json and -f.json measured once each side empties its WAL before the timed
 call (bench/lib/fixtures.ts emptyWal): the setup had left a checkpoint or a WAL restart in the
 timed call, which had raised those ratios. The feed, fanout and PostgreSQL latency limits came
 with the change feed that reads what changed (R68, R70; 2026-12-04), from one full and one smoke
 run of their groups (bench/results/reference-feed-2026-12-04.json): the feed's two are the
 issue's own targets (at most 20x a keyed read), the others about half of what was measured.
 The tools floors came with the keyed page reads (T15; 2026-12-06), from one full and three smoke
 runs of `--filter tools`: about half of the lowest ratio seen, each far above what a walk that
 reads everything per page gives. The hook-start floor came that day from one full and one smoke
 run of `--filter hook-start`, about 60% of the lower (a start's ratio moves less with load than a
 throughput's: both sides are process starts).
 */
export const LIMITS_FOR_CHECK: readonly Limit[] = [
  // --- append: adapter record() vs a raw single-row INSERT (autocommit), same schema and pragmas.
  { id: 'append/sqlite@0w', metric: 'ratio', min: 0.35, why: 'measured 0.74-0.75 (references 2026-12-04d/e), 0.74 smoke, 0.56-0.62 in loaded smoke runs on 2026-12-03: validation + head upsert + one cursor probe that finds no row, one IMMEDIATE transaction' },
  { id: 'append/sqlite@1w', metric: 'ratio', min: 0.3, why: 'measured 0.67 (references 2026-12-04d/e), 0.68 smoke; 0.54 at 01:00 against a faster single commit, 0.40 in a loaded smoke run on 2026-12-03: one cursor row moved by the set-based UPDATE' },
  { id: 'append/sqlite@10w', metric: 'ratio', min: 0.3, why: 'measured 0.66 (references 2026-12-04d/e), 0.67 smoke; 0.50 at 01:00 against a faster single commit (0.56 before schema step 7, 0.25 before the set-based UPDATE); a read-and-upsert per watcher again would give about 0.2' },
  { id: 'append/sqlite@100w', metric: 'ratio', min: 0.25, why: 'measured 0.62 (references 2026-12-04d/e), 0.63 smoke; 0.45-0.58 earlier that day, 0.48 smoke: schema step 7 leaves pending cursors to the slots table, so only idle ones are written; rewriting every pending cursor again (step 6) gives 0.28 full, 0.13-0.22 smoke' },

  // --- recordMany (R9e): one transaction per batch of 100, per event vs the raw single-row INSERT (autocommit).
  { id: 'append/sqlite-batch100@0w', metric: 'ratio', min: 1.5, why: 'measured 6.8-6.9 (references 2026-12-04d/e, single commits at 34 us), 3.97 at 01:00 (single commits at 24 us), 6.2 smoke, 2.0 in a loaded smoke run on 2026-12-03: one commit per 100 events; a commit per event again would give under 1' },
  { id: 'append/sqlite-batch100@10w', metric: 'ratio', min: 1, why: 'measured 3.56-3.57 (references 2026-12-04d/e), 2.46 at 01:00, 3.5 smoke, 2.01 on 2026-12-03: as at 0 watchers plus ten cursor rows moved per event' },
  // --- the in-memory reference store (pure core + Maps), vs the same raw INSERT: a regression in the core shows here.
  { id: 'append/memory@0w', metric: 'ratio', min: 18, why: 'measured 62.6-63.3 (1.85-1.88M events/s, references 2026-12-04d/e), 41.3 (1.69M/s) at 01:00 against a faster single commit; before that day 39.2 (1.31M events/s, reference 2026-12-03 evening; 29.0-36.1 and 0.95-1.23M/s in three other full runs that day; 21.6 and 718k/s before the payload check and snapshot changes), 34.7 smoke: one repeated input' },
  { id: 'append/memory@1w', metric: 'ratio', min: 10, why: 'measured 19.3-19.9 in two smoke runs on 2026-12-06 (the same before and after the lazy payload checks), 13.7 in a CI smoke run that day (every append ratio of that run was a third under its reference: the raw commit ran fast); earlier 47.6-50.1 (1.41-1.49M events/s, references 2026-12-04d/e), 31.6 at 01:00; before that day 25.7 (861k events/s, reference 2026-12-03 evening; 24.0-35.2 in three other full runs; 19.7 and 652k/s that morning), 27.0 smoke: one cursor moved per event' },
  { id: 'append/memory-varied@0w', metric: 'ratio', min: 5, why: 'measured 17.1-17.6 (504-522k events/s, references 2026-12-04d/e), 14.0 smoke, 10.8 at 01:00; before that day 11.1 (371k events/s, reference 2026-12-03 evening; 9.2-10.3 in other runs; 7.73 that morning): distinct inputs over 5k sessions, so no answer a validator or store remembers comes back' },

  // --- changesSince: adapter page vs the raw indexed range query mapped to plain objects.
  { id: 'changes-since/sqlite-limit200@1M', metric: 'ratio', min: 0.45, why: 'measured 0.91-0.92 at 1M events over 10k sessions: the page read dominates, the adapter adds decoding' },
  { id: 'changes-since/sqlite-limit200@10k', metric: 'ratio', min: 0.3, why: 'measured 0.84-1.17 on 2026-12-02; 0.55 (reference) and 0.42 (smoke under load) on 2026-12-03 with changesSince unchanged: same page at a small log' },
  { id: 'changes-since/sqlite-limit1@1M', metric: 'ratio', min: 0.3, why: 'measured 0.60-0.67: fixed cost per call (read transaction, head and lowest-sequence reads)' },
  { id: 'changes-since/sqlite-limit1@10k', metric: 'ratio', min: 0.3, why: 'measured 0.65-1.06: fixed cost per call at a small log' },

  // --- no table scan per append: the same append at 1M rows vs at 10k rows.
  { id: 'append-size/sqlite@1M', metric: 'ratio', min: 0.45, why: 'measured 0.91-1.29: flat; a scan or COUNT(*) per append at 1M rows would give well under 0.1' },

  // --- pruning, per row removed, vs the bare DELETE of the same rows (4 samples per side in smoke: wider margins).
  { id: 'prune-cap/sqlite@1k', metric: 'ratio', min: 0.3, why: 'measured 0.59-0.64 (references 2026-12-04f/g, WAL emptied before each call), 0.67 in e before that: one upsert per removed row raises its watermark (R42), and the cut is found by count(*) on the narrow index plus a walk of the rows to remove' },
  { id: 'prune-cap/sqlite@10k', metric: 'ratio', min: 0.28, why: 'measured 0.56-0.58 (references 2026-12-04f/g: with the WAL emptied before each call a 10k-row prune checkpoints only its own pages, and the adapter writes more of them), 0.68-0.94 before (references b and e): as at 1k' },
  { id: 'prune-age/sqlite@1k', metric: 'ratio', min: 0.2, why: 'measured 0.41 (references 2026-12-04f/g) and 0.40-0.41 in four --filter prune-age runs with the WAL emptied before each call; 0.39 and 0.53 before that (references d and e, the same code: where the checkpoint fell), 0.31-0.34 with the GROUP BY stamp: about 1k watermarks raised for 1k rows spread over 10k sessions; a GROUP BY and UPDATE ... FROM again gives about 0.35' },
  { id: 'prune-age/sqlite@10k', metric: 'ratio', min: 0.27, why: 'measured 0.53-0.54 (references 2026-12-04f/g), 0.60-0.66 in --filter runs; 0.71-0.76 before the WAL was emptied before each call (references b and e)' },

  // --- drain/ack vs one raw UPDATE per pair, grouped in transactions as the adapter groups them.
  { id: 'drain/sqlite-fan-in@10', metric: 'ratio', min: 0.25, why: 'measured 0.66 and 0.43 (references 2026-12-04g and f, f under a busy neighbour), 0.54-0.64 in three --filter drain runs; 0.76-0.83 before the setup paid the WAL restart untimed: 1 watcher x 10 targets, one read of the pending index with a slots lookup per notice, a fold, a count and one one-pass UPDATE through the watcher index' },
  { id: 'drain/sqlite-fan-in@1k', metric: 'ratio', min: 0.38, why: 'measured 0.79 (reference 2026-12-04b), 0.79 smoke: 1 watcher x 1k targets, one transaction, rows read as arrays; row objects again give about 0.65, the two-pass UPDATE through the pending index about 0.6' },
  { id: 'drain/sqlite-fan-out@10', metric: 'ratio', min: 0.3, why: 'measured 0.67-0.80: 10 watchers x 1 target, one transaction each' },
  { id: 'drain/sqlite-fan-out@1k', metric: 'ratio', min: 0.35, why: 'measured 0.77-1.20: 1k watchers x 1 target' },


  // --- pending notices read from durable state (R20, R26) vs the adapter's own per-watcher query.
  { id: 'pending/sqlite@1k', metric: 'ratio', min: 0.4, why: 'measured 0.83 (references 2026-12-04d/e; 1.06 in c, 0.92 in b against a baseline that built row objects), 0.79 smoke: rows read as arrays, notices built and sorted in JS per watcher; the baseline reads the same arrays and builds nothing, so the margin is JS alone' },
  { id: 'pending/sqlite@10k', metric: 'ratio', min: 0.3, why: 'measured 0.73-0.75 (references 2026-12-04d/e; 0.67 in c with the per-character context key), 0.74 smoke, 0.285 once in a smoke run under a mutation run (2 rounds of 2 samples per side in smoke: wide spread)' },
  // --- cross-process notice latency: not a ratio; multiples of the feed's poll interval (machine-independent).
  { id: 'latency/sqlite-cross-process@poll50ms', metric: 'p99OverPoll', max: 3, why: 'measured 1.11 (smoke, load 11): the first poll after a commit sees it, plus one read; missed or stalled polls would exceed 2' },

  // --- the change feed's answer to one commit (R68): read what changed + news per watcher + signal, against a keyed one-row SELECT after the same commit.
  { id: 'feed/sqlite@1k', metric: 'ratio', min: 0.05, why: 'the target: at most 20x the keyed read; measured 0.14 (full, 36 us against 4.9 us) and 0.12 smoke on 2026-12-04 at load 9-16. The old path (listPending + full diff) gave 0.0009 here' },
  { id: 'feed/sqlite@100k', metric: 'ratio', min: 0.05, why: 'the target: at most 20x the keyed read; measured 0.25 (full and smoke, 55 us against 14 us) on 2026-12-04; the old path gave 0.00001 (1.17 s)' },
  { id: 'feed/sqlite-flat@100k', metric: 'ratio', min: 0.3, why: 'flat from 1k to 100k pending pairs (target within 2x, 0.5): measured 0.65-0.66 (two full runs) and 0.83 (smoke) on 2026-12-04; a read of everything pending again is 200x apart here (5.5 ms against 1.17 s)' },
  // --- one subscription per watcher: a commit's cost must not follow the number of subscribers.
  { id: 'fanout/sqlite@10k', metric: 'ratio', min: 0.55, why: 'per-commit time with 10k subscribed watchers against 1k on the same file: measured 1.09 (smoke, 2026-12-04); 0.43 while every read copied and filtered every subscriber to find the ones waiting for a snapshot' },
  // --- cross-process latency at default settings: woken by the -wal file (R70) and by NOTIFY, not by the 200 ms poll.
  { id: 'latency/sqlite@100k', metric: 'p99OverPoll', max: 0.5, why: 'p99 over the default 200 ms poll: measured 0.038 (7.7 ms, smoke at load 16, 2026-12-04); a feed that waited for its poll again would give about 1' },
  { id: 'latency/postgres@100k', metric: 'p99OverPoll', max: 1, why: 'p99 over the default 200 ms poll (PostgreSQL is woken by NOTIFY, it has no token to poll): measured 0.18 (full, 35.6 ms, p50 1.0 ms) on 2026-12-04 at load 11-15; the tail follows server stalls (the writer\'s own record() p99 was 52 ms in that run, 173 ms in the 1k case), hence the wide ceiling; a listener that read every pending pair per NOTIFY pays a 100k-row read and diff per commit' },

  // --- paged lists (T15): every page walked with nextCursor, against one full read of the same rows (ratio = full read time / walk time; 0.33 is a walk of 3x the full read).
  { id: 'tools/sessions-list-walk@10k', metric: 'ratio', min: 0.2, why: 'the target is at most 3x one full read of every head (0.33): measured 0.41-0.50 smoke and 0.50 full (0.69 at 100k, 329 ms against 226 ms) on 2026-12-06 at load 4-9; a page that reads every head again makes the walk quadratic: 100 full reads here, about 0.01' },
  { id: 'tools/sessions-list-walk-tree@10k', metric: 'ratio', min: 0.15, why: 'bound with visibility tree, the walk reads every row once to find the lead\'s 100 children: measured 0.26 (load 9), 0.36-0.41 smoke and 0.40 full (0.44 at 100k) on 2026-12-06; a read of every spawn parent per page, or of every head, gives well under 0.05' },
  { id: 'tools/sessions-list-walk-tree@chain-1k', metric: 'ratio', min: 0.1, why: 'one spawn chain of 1k sessions, every row up to 32 steps from the lead: measured 0.20-0.37 on 2026-12-06 with the page\'s walks shared (scopeChecker); 0.03-0.05 when every row walked its own 32 steps' },
  { id: 'tools/resources-list-walk@10k', metric: 'ratio', min: 0.5, why: 'every resources/list page (1,000 watchers) against one listPending: measured 1.75-3.1 smoke and 2.0 full (1.70 at 100k) on 2026-12-06; a page that lists every pending pair again gives about 0.1 at 10 pages' },

  // --- memory: not a ratio; bytes of JS heap kept per append after a forced GC.
  // --- upstream-scan: the monitor reading a Claude Code transcript from offset 0 (8 MiB smoke, 100 MiB full; one id, both sizes).
  { id: 'upstream-scan/core', metric: 'ratioVsParse', min: 0.4, why: 'measured 0.8-1.2 against decode + JSON.parse of every line (2026-12-03, loaded VM): classification adds little to parsing; per-line regexes or a quadratic long-line reader would fall below' },
  { id: 'upstream-scan/core', metric: 'rssGrowthMiB', max: 64, why: 'U6: a scan adds under 64 MiB resident memory, long lines included; measured +23.5 MiB (100 MiB file, fresh process)' },
  { id: 'upstream-scan/core', metric: 'longLineRssGrowthMiB', max: 96, why: 'U6: one line far over the read limit (64 MiB smoke, 300 MiB full) is read in bounded memory; measured +39.5 MiB for a 300 MiB line (2026-12-04); a reader that held each read again would grow with the line' },
  // --- a command hook's start to exit against a bare `node -e 0` start (T9: the person waits for it before every answer).
  { id: 'hook-start/codex-prompt', metric: 'ratio', min: 0.3, why: 'measured 0.51 full (129 ms against 66 ms, load 0.8) and 0.51 smoke (123 against 63 ms) on 2026-12-06 once the hook had its own one-file program; 0.44 (213 against 94 ms, load 1.7) before it, and about 0.16 when the hook loaded the MCP server and typebox\'s 700 modules' },
  // --- a PostgreSQL fleet (R73): 100 feeds, each subscribed to a disjoint 1% of the watchers; a commit is news for one.
  { id: 'fleet-postgres/routed@100feeds', metric: 'readTransactionsPerCommit', max: 0.5, why: 'the fleet\'s target is at most 3; R74: a wake carries its news, so a feed reads only to confirm it (10 s after, the default): measured 0.004 full on 2026-12-07 02:58; 0.07 full and 0.16 smoke with reads every second on 2026-12-06 14:00; with R73\'s names alone every commit was a read of one feed (0.90-0.92), and a feed that read on every wake gives about 2.5-10 here' },
  { id: 'fleet-postgres/routed@100feeds', metric: 'cursorRowsReadPerCommit', max: 150, why: 'measured 49 full and 17 smoke on 2026-12-06 with the change reads bounded above; without the bound a fresh schema (no statistics) was read by sequential scans: 194 rows per commit full, thousands in the worst case' },
  { id: 'fleet-postgres/routed@100feeds', metric: 'feedWakesPerCommit', max: 3, why: 'R75: a commit wakes the feeds that listen for its watcher\'s wake group: measured 1.13 full and smoke on 2026-12-07 (the one feed it is for, and now and then one that shares the group); with every wake on the store\'s one channel each of the 100 feeds heard every commit (100)' },
  { id: 'fleet-postgres/idle@100feeds', metric: 'feedWakesPerCommit', max: 1, why: 'R75: no feed listens for the watchers the commits name, so only a shared wake group wakes one: measured 0.23 full and 0.22 smoke on 2026-12-07; on the store\'s one channel every feed heard every commit (100)' },
  { id: 'fleet-postgres/idle@100feeds', metric: 'readTransactionsPerCommit', max: 0.05, why: 'R73: a feed none of whose subscribers a commit names does not read; measured 0 full and smoke on 2026-12-06 10:36; a feed that read on every wake reads 1 per feed per commit when its reads do not coalesce, 2.5 or more here' },
  { id: 'memory/sqlite', metric: 'heapSlopeBytesPerAppend', max: 8, why: 'measured 0.19-0.46 B/append over 50k appends; retaining one small object per append would exceed 16' },
];
