import { appendGroup, appendSizeGroup } from './cases/append.js';
import { changesSinceGroup } from './cases/changes-since.js';
import { fanoutGroup } from './cases/fanout.js';
import { hookGroup } from './cases/hook.js';
import { feedGroup } from './cases/feed.js';
import { fleetPostgresGroup } from './cases/fleet-postgres.js';
import { fleetSqliteGroup } from './cases/fleet-sqlite.js';
import { latencyGroup } from './cases/latency.js';
import type { BenchGroup } from './cases/context.js';
import { memoryGroup } from './cases/memory.js';
import { drainGroup, pendingGroup } from './cases/notices.js';
import { pruneAgeGroup, pruneCapGroup } from './cases/prune.js';
import { toolsGroup } from './cases/tools.js';
import { upstreamScanGroup } from './cases/upstream-scan.js';

/** Run order: cheap groups first; the event logs changes-since builds are reused by append-size and prune. */
export const GROUPS: readonly BenchGroup[] = [appendGroup, changesSinceGroup, appendSizeGroup, pruneCapGroup, pruneAgeGroup, drainGroup, pendingGroup, memoryGroup, feedGroup, fanoutGroup, latencyGroup, upstreamScanGroup, toolsGroup, hookGroup, fleetSqliteGroup, fleetPostgresGroup];
