import type { RecordInput } from '../../spec/index.js';
import { noticeResourcesPage } from '../../src/mcp/server.js';
import { TABLES, openStateConnectionReadOnly } from '../../src/sqlite/schema.js';
import type { SqliteStore } from '../../src/sqlite/sqlite-store.js';
import { MAX_TREE_DEPTH, createSessionTools, type SessionTools } from '../../src/tools/index.js';
import { AGENT, appendInput, openAdapter } from '../lib/fixtures.js';
import { measureInterleavedAsync, type CountBudget } from '../lib/measure.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { shortCount } from '../plan.js';
import type { BenchGroup, CaseContext } from './context.js';

/**
 * tools: the MCP server's paged lists (T15) as `session-state-kit mcp` serves them, walked page by
 * page to the end, against one full read of the same rows (the baseline; ratio = full read time /
 * walk time, so 0.33 is a walk that costs 3x the full read).
 * - sessions_list on a file of N sessions: every page (limit 100) unbound, and bound to a lead with
 *   the default `tree` visibility (T12); the lead's 100 children are spread over the list, so a
 *   bound walk reads every row once to find them. The full read is every head in key order in one
 *   statement. Before keyed pages each page read (and sorted) every head: a walk was quadratic.
 * - the first page alone, unbound: what a model's first call costs, whatever the file holds.
 * - one spawn chain of 1k sessions under the lead: every row walks up to 32 steps (MAX_TREE_DEPTH),
 *   and only the 32 nearest are in the scope.
 * - resources/list over N watchers with one pending notice each: every page (1,000 watchers),
 *   against one read of every pending pair (listPending), which each page made before.
 */
const SIZES: Record<CaseContext['mode'], number[]> = { full: [10_000, 100_000], smoke: [10_000] };
const BUDGET: Record<CaseContext['mode'], CountBudget> = { full: { rounds: 3, iterations: 5, warmupIterations: 1 }, smoke: { rounds: 3, iterations: 3, warmupIterations: 1 } };
const LEAD = 'agent:main:lead';
const CHILDREN = 100;
const CHAIN = 1_000;
const TARGET = 'agent:main:watched';

function build(path: string, sessions: number, chain: boolean): void {
  const store = openAdapter(path);
  try {
    let batch: RecordInput[] = [];
    const flush = () => {
      store.recordMany(batch);
      batch = [];
    };
    for (let i = 0; i < sessions; i++) {
      const key = `agent:main:s-${String(i).padStart(6, '0')}`;
      // Flat: the lead's children spread evenly, so its walk reads the whole list.
      const parent = chain ? (i === 0 ? LEAD : `agent:main:s-${String(i - 1).padStart(6, '0')}`) : i % Math.floor(sessions / CHILDREN) === 0 ? LEAD : undefined;
      batch.push(parent === undefined ? appendInput(key) : { sessionKey: key, agentId: AGENT, kind: 'child_spawned', actorType: 'agent', actorId: parent, summary: 'child session spawned' });
      if (batch.length === 1_000) flush();
    }
    batch.push(appendInput(LEAD));
    flush();
  } finally {
    store.close();
  }
}

/** N watchers, each with one pending notice about TARGET. */
function buildPending(path: string, watchers: number): void {
  const store = openAdapter(path);
  try {
    for (let i = 0; i < watchers; i++) store.watch({ watcherSessionKey: `agent:main:w-${String(i).padStart(6, '0')}`, targetSessionKey: TARGET, agentId: AGENT });
    store.record({ ...appendInput(TARGET), kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
  } finally {
    store.close();
  }
}

/** The baseline: every head in key order, read in one statement (a read-only connection opened once, outside the timing). */
function fullRead(path: string): { read: () => number; close: () => void } {
  const db = openStateConnectionReadOnly(path);
  const statement = db.prepare(`SELECT session_key, agent_id, last_sequence FROM ${TABLES.heads.name} ORDER BY session_key, agent_id`);
  return {
    read: () => statement.all().map((r) => ({ sessionKey: r['session_key'] as string, agentId: r['agent_id'] as string, stateVersion: Number(r['last_sequence']) })).length,
    close: () => db.close(),
  };
}

/** Every sessions_list page, cursor to cursor; checks the walk saw `expected` sessions. */
function walk(tools: SessionTools, expected: number): () => Promise<void> {
  return async () => {
    let cursor: string | undefined;
    let seen = 0;
    do {
      const out = (await tools.call('sessions_list', cursor === undefined ? {} : { cursor })).result as { sessions: unknown[]; nextCursor?: string };
      seen += out.sessions.length;
      cursor = out.nextCursor;
    } while (cursor !== undefined);
    if (seen !== expected) throw new Error(`sessions_list walked ${seen} sessions, expected ${expected}`);
  };
}

async function sessionsCases(ctx: CaseContext, n: number, chain: boolean): Promise<CaseResult[]> {
  const s = shortCount(n);
  const path = ctx.ws.file(`tools-${chain ? 'chain' : 'flat'}-${s}`);
  ctx.progress(`tools: building ${s} sessions${chain ? ' in one spawn chain' : ''}`);
  build(path, n, chain);
  const store: SqliteStore = openAdapter(path);
  const full = fullRead(path);
  try {
    // As src/cli/mcp.ts wires it: one keyed page read per call.
    const listSessionsPage = store.sessionsPage.bind(store);
    const unbound = createSessionTools({ store, listSessionsPage });
    const bound = createSessionTools({ store, listSessionsPage, caller: LEAD });
    // The lead and its children; in the chain, the 32 steps below the lead (MAX_TREE_DEPTH).
    const inTree = chain ? MAX_TREE_DEPTH + 1 : CHILDREN + 1;
    const tasks = [
      { name: 'full', fn: () => full.read() },
      { name: 'walk', fn: walk(unbound, n + 1) },
      { name: 'tree', fn: walk(bound, inTree) },
      ...(chain
        ? []
        : [
            {
              name: 'first',
              fn: async () => {
                const r = (await unbound.call('sessions_list', {})).result as { sessions: unknown[] };
                if (r.sessions.length !== 100) throw new Error('sessions_list answered a short first page');
              },
            },
          ]),
    ];
    const got = await measureInterleavedAsync(tasks, BUDGET[ctx.mode], (m) => ctx.progress(`tools ${s}: ${m}`));
    const id = chain ? `chain-${s}` : s;
    const base = `tools/sessions-full-read@${id}`;
    const common = { group: 'tools', size: chain ? `${s} sessions in one spawn chain` : `${s} sessions`, unitsPerOp: 1 };
    return [
      makeResult({ ...common, id: base, label: 'every head in key order, one statement (baseline)', unit: 'read', latency: got.get('full')! }),
      makeResult({ ...common, id: `tools/sessions-list-walk@${id}`, label: 'every sessions_list page, unbound', unit: 'walk', latency: got.get('walk')!, baselineId: base }),
      makeResult({ ...common, id: `tools/sessions-list-walk-tree@${id}`, label: 'every sessions_list page, bound with visibility tree', unit: 'walk', latency: got.get('tree')!, baselineId: base }),
      ...(chain ? [] : [makeResult({ ...common, id: `tools/sessions-list-first@${id}`, label: 'the first sessions_list page, unbound', unit: 'page', latency: got.get('first')!, baselineId: base })]),
    ];
  } finally {
    full.close();
    store.close();
  }
}

async function resourcesCases(ctx: CaseContext, n: number): Promise<CaseResult[]> {
  const s = shortCount(n);
  const path = ctx.ws.file(`tools-pending-${s}`);
  ctx.progress(`tools: building ${s} watchers with a pending notice`);
  buildPending(path, n);
  const store: SqliteStore = openAdapter(path);
  try {
    const pages = async () => {
      let cursor: string | undefined;
      let seen = 0;
      do {
        const out = await noticeResourcesPage(store, cursor);
        seen += out.resources.length;
        cursor = out.nextCursor;
      } while (cursor !== undefined);
      if (seen !== n) throw new Error(`resources/list walked ${seen} watchers, expected ${n}`);
    };
    const got = await measureInterleavedAsync(
      [
        { name: 'full', fn: () => store.listPending().length },
        { name: 'walk', fn: pages },
      ],
      BUDGET[ctx.mode],
      (m) => ctx.progress(`tools ${s} pending: ${m}`),
    );
    const base = `tools/pending-full-read@${s}`;
    const common = { group: 'tools', size: `${s} watchers with one pending notice each`, unitsPerOp: 1 };
    return [
      makeResult({ ...common, id: base, label: 'every pending pair, one read (listPending; baseline)', unit: 'read', latency: got.get('full')! }),
      makeResult({ ...common, id: `tools/resources-list-walk@${s}`, label: 'every resources/list page', unit: 'walk', latency: got.get('walk')!, baselineId: base }),
    ];
  } finally {
    store.close();
  }
}

export const toolsGroup: BenchGroup = {
  group: 'tools',
  async run(ctx: CaseContext): Promise<CaseResult[]> {
    const out: CaseResult[] = [];
    for (const n of SIZES[ctx.mode]) out.push(...(await sessionsCases(ctx, n, false)));
    out.push(...(await sessionsCases(ctx, CHAIN, true)));
    for (const n of SIZES[ctx.mode]) out.push(...(await resourcesCases(ctx, n)));
    return out;
  },
};
