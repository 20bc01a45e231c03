/**
 * The mutation runs, one per directory so each can be run and re-run on its own.
 * `npm run mutation -- <part>...` (no part: all of them, in this order). `tests` adds a part's own
 * test files to the in-process selection of mutation/vitest.config.ts, `excludeTests` leaves some out.
 */
export const PARTS = {
  // T16's size-first refusals of oversized tool input are held by the tools' size-first file.
  core: { mutate: ['src/core/*.ts', '!src/core/index.ts'], target: 90, tests: ['test/tools/size-first.test.ts'] },
  upstream: { mutate: ['src/core/upstream/**/*.ts', '!src/core/upstream/index.ts'], target: 90 },
  memory: { mutate: ['src/memory/*.ts', '!src/memory/index.ts'], target: 80 },
  // bun-sqlite.ts and node-sqlite.ts need Bun / Node 22's node:sqlite, which Node 20 cannot load in
  // process; `bash runtimes/run.sh` runs the suite on those runtimes instead.
  // The read model (state-reader.ts) is reached in process by the live view's source tests, which
  // read pages without a server; inspect's run the built CLI as a process, which a mutant in
  // Stryker's sandbox does not reach. The view's HTTP tests stay out: a static mutant runs the
  // whole selection, and with them a from-scratch run was estimated at five hours. The store's
  // change reads (R68-R72: pending-reads.ts, the feed's methods) are held by the feed's in-process
  // files, as in the feed part; inspect's reads by the read model's own file (read-model), and T15's
  // pages and T12's spawn parents by theirs.
  sqlite: {
    mutate: ['src/sqlite/**/*.ts', '!src/sqlite/index.ts', '!src/sqlite/driver/bun-sqlite.ts', '!src/sqlite/driver/node-sqlite.ts'],
    target: 80,
    tests: ['test/ui/{mutation-pages,feed-source,read-only-dir}.test.ts', 'test/feed/*.test.ts', 'test/sqlite/{pages,spawn-parents,read-model,mutation-state-reader,mutation-state-reader-open}.test.ts'],
  },
  // The change feed (R60-R73): its in-process tests (mutation/vitest.config.ts adds test/feed for
  // this part; the two-process file starts other OS processes and stays out).
  feed: { mutate: ['src/feed/*.ts', '!src/feed/index.ts', '!src/feed/types.ts'], target: 90, tests: ['test/feed/*.test.ts'] },
  // The session tools (T1-T15): their handlers over the memory and SQLite stores, in process
  // (test/tools without the file that runs the survivors script as a child process).
  // The upstream monitor's host side (src/upstream: the sources, link stores, the monitor loop;
  // core/upstream is the `upstream` part), reached by the base selection's test/upstream files.
  monitor: { mutate: ['src/upstream/*.ts', '!src/upstream/index.ts', '!src/upstream/types.ts'], target: 90 },
  // The live view's reads and server (R80-R89), in process. Narrower: the page's own script
  // (assets.ts) is reached only by the browser tests and the PostgreSQL reads only with a server,
  // so assets.ts is not mutated and test/ui/{live-view,pg-source} stay out.
  ui: { mutate: ['src/ui/*.ts', '!src/ui/assets.ts'], target: 90, tests: ['test/ui/*.test.ts'], excludeTests: ['test/ui/live-view.test.ts', 'test/ui/pg-source.test.ts'] },
  tools: { mutate: ['src/tools/*.ts', '!src/tools/index.ts'], target: 90, tests: ['test/tools/*.test.ts', 'test/mcp/pages.test.ts', 'test/integrations/{openai-agents-roles,claude-agent-sdk-types}.test.ts'], excludeTests: ['test/tools/mutation-survivors.test.ts'] },
  // The MCP server (T8, T13-T15) in process, over the SDK's in-memory transport. stdio.ts only
  // joins it to a process's stdin and stdout, which the stdio tests reach as another process.
  mcp: { mutate: ['src/mcp/*.ts', '!src/mcp/stdio.ts'], target: 90, tests: ['test/mcp/{pages,mutation-server}.test.ts'] },
  // The runtime integrations (hook plans and their application, the agent CLIs' event mappings,
  // the Claude Agent SDK hooks, the OpenAI Agents tools, the OpenCode plugin), by their in-process
  // tests. The OpenAI Agents end-to-end file runs its SDK in process against a stand-in model and
  // is in; the Claude Agent SDK's starts the claude binary and stays out. Only
  // these files: the base selection reaches none of this code. The payload files' checks against
  // the pinned binaries are skipped (SSK_AGENT_BINARIES=off), their recorded fixtures stay.
  integrations: {
    mutate: ['src/integrations/**/*.ts', '!src/integrations/**/index.ts'],
    target: 90,
    ownTestsOnly: true,
    tests: [
      'test/integrations/{claude-agent-sdk-hooks,claude-agent-sdk-types,openai-agents-roles,openai-agents-e2e,mutation-plans,mutation-claude-hooks,mutation-hook-apply,mutation-hook-plan,mutation-delegation,mutation-openai-notices}.test.ts',
      // One hook run per runtime in process (the runtimes' event mappings end to end).
      'test/cli/mutation-hook.test.ts',
      'test/hook/{payloads,codex-payloads,qwen-payloads,copilot-payloads,opencode-payloads,opencode,mutation-opencode-plugin,mutation-opencode-plugin-steps,mutation-opencode-events,mutation-plan-events}.test.ts',
    ],
  },
  // The hooks and `init` of the CLI (T9, T40-T63): what they plan, write, refuse and print, by
  // in-process tests of their own (the other test/cli and test/hook files run the built CLI as a
  // process, which a mutant in Stryker's sandbox does not reach).
  cli: {
    mutate: ['src/cli/{hook,init,agent-config,config-files,kit-command,json-text,shell-words}.ts'],
    target: 90,
    ownTestsOnly: true,
    tests: ['test/cli/mutation-*.test.ts', 'test/cli/{shell-words,init-properties}.test.ts'],
  },
  // The PostgreSQL store (R71-R74 and the contract on a server): its test files over one embedded
  // server per worker (`postgres: true`, mutation/postgres-setup.ts), plus the live view's
  // PostgreSQL reads. The read model (inspect's reads and the live view's) is held in process by
  // read-model and inspect, the store's edges (failures, the change hook, pages, the cap) by
  // mutation-store, the error mapping without a server by errors, the schema's steps by schema.
  // Left out: the SIGKILL file, the CLI and conformance runs (other processes) and the file that
  // starts servers of its own. testing/ is the tests' server, not the store.
  postgres: {
    mutate: ['src/postgres/**/*.ts', '!src/postgres/index.ts', '!src/postgres/testing/**', '!src/postgres/pg-types.ts'],
    target: 90,
    ownTestsOnly: true,
    postgres: true,
    tests: ['test/postgres/{contract,config-errors,errors,feed,inspect,meeting-names,mutation-store,pages,pending-reads,read-back,read-model,remote-listener,schema,schema-name,store,wake-groups,wake-news}.test.ts', 'test/ui/pg-source.test.ts'],
  },
  // One small file of core (R6's clock check): the same run as a whole part's, in about half a
  // minute; the first example of docs/mutation.md, which a test runs so the setup cannot rot
  // unnoticed. Not in the default run of every part (core covers it).
  clock: { mutate: ['src/core/clock.ts'], target: 90, inDefaultRun: false },
};
