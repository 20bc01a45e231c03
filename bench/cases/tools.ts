import type { RecordInput } from '../../spec/index.js';
import type { SessionsListRow } from '../../spec/schemas/tools.js';
import { TABLES, openStateConnectionReadOnly } from '../../src/sqlite/schema.js';
import { createSessionTools } from '../../src/tools/index.js';
import { AGENT, appendInput, openAdapter } from '../lib/fixtures.js';
import { measureInterleavedAsync, type CountBudget } from '../lib/measure.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { shortCount } from '../plan.js';
import type { BenchGroup, CaseContext } from './context.js';

/**
 * tools: the first page of `sessions_list` (limit 100) on a file of N sessions, as the MCP server
 * reads it (every head, sorted), unbound against bound with the default `tree` visibility (T12).
 * The bound caller is a lead that spawned 100 children spread over the list, the others are flat: the tree
 * check visits every row to find the caller's few, one durable spawn-parent lookup per row (or
 * per step of a chain). A second file holds one spawn chain of 1k sessions under the caller (32
 * steps cap each walk, MAX_TREE_DEPTH). The ratio bound/unbound is the figure: the tree must cost
 * at most 3x the unbound page.
 */
const SIZES: Record<CaseContext['mode'], number[]> = { full: [10_000, 100_000], smoke: [10_000] };
const BUDGET: Record<CaseContext['mode'], CountBudget> = { full: { rounds: 3, iterations: 5, warmupIterations: 1 }, smoke: { rounds: 2, iterations: 3, warmupIterations: 1 } };
const LEAD = 'agent:main:lead';
const CHILDREN = 100;
const CHAIN = 1_000;

function listing(path: string): () => SessionsListRow[] {
  // As src/cli/mcp.ts reads it: every head on a read-only connection, sorted by identity.
  return () => {
    const db = openStateConnectionReadOnly(path);
    try {
      const rows = db.prepare(`SELECT session_key, agent_id FROM ${TABLES.heads.name}`).all() as { session_key: string; agent_id: string }[];
      return rows.map((r) => ({ sessionKey: r.session_key, agentId: r.agent_id })).sort((a, b) => (a.sessionKey < b.sessionKey ? -1 : a.sessionKey > b.sessionKey ? 1 : 0));
    } finally {
      db.close();
    }
  };
}

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
      // Flat: the lead's children spread evenly, so its first page scans the whole list.
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

export const toolsGroup: BenchGroup = {
  group: 'tools',
  async run(ctx: CaseContext): Promise<CaseResult[]> {
    const out: CaseResult[] = [];
    const cases = [...SIZES[ctx.mode].map((n) => ({ n, chain: false })), { n: CHAIN, chain: true }];
    for (const { n, chain } of cases) {
      const s = shortCount(n);
      const path = ctx.ws.file(`tools-${chain ? 'chain' : 'flat'}-${s}`);
      ctx.progress(`tools: building ${s} sessions${chain ? ' in one spawn chain' : ''}`);
      build(path, n, chain);
      const store = openAdapter(path);
      try {
        const listSessions = listing(path);
        const unbound = createSessionTools({ store, listSessions });
        const bound = createSessionTools({ store, listSessions, caller: LEAD });
        const page = (tools: typeof unbound) => async () => {
          const r = (await tools.call('sessions_list', { limit: 100 })).result as { sessions: unknown[] };
          if (r.sessions.length === 0) throw new Error('sessions_list answered an empty page');
        };
        const got = await measureInterleavedAsync(
          [
            { name: 'unbound', fn: page(unbound) },
            { name: 'tree', fn: page(bound) },
          ],
          BUDGET[ctx.mode],
          (m) => ctx.progress(`tools ${s}: ${m}`),
        );
        const id = chain ? `chain-${s}` : s;
        const common = { group: 'tools', size: chain ? `${s} sessions in one spawn chain` : `${s} sessions`, unit: 'page', unitsPerOp: 1 };
        out.push(makeResult({ ...common, id: `tools/sessions-list-unbound@${id}`, label: 'sessions_list first page, unbound (baseline)', latency: got.get('unbound')! }));
        out.push(makeResult({ ...common, id: `tools/sessions-list-tree@${id}`, label: 'the same page, bound with visibility tree', latency: got.get('tree')!, baselineId: `tools/sessions-list-unbound@${id}` }));
      } finally {
        store.close();
      }
    }
    return out;
  },
};
