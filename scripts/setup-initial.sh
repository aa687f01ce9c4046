#!/usr/bin/env bash
# One-time setup for a fresh clone: installs dependencies, checks the tools the harness needs, and
# evaluates the initial agent so later runs reuse its results.
#   npm run setup                       # the arithmetic domain
#   npm run setup -- arithmetic,other   # several domains
set -euo pipefail
cd "$(dirname "$0")/.."
domains="${1:-arithmetic}"

fail() { echo "setup: $*" >&2; exit 1; }

command -v node >/dev/null || fail "Node.js is not installed. Install Node 20.19 or newer from https://nodejs.org."
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  || fail "Node $(node --version) is too old: hyperagents-ts needs Node 20.19 or newer."
command -v git >/dev/null || fail "git is not installed: the harness keeps every agent variant in a git repository. Install git and run again."
echo "node $(node --version), $(git --version)"

if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi

if command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-net true 2>/dev/null; then
  echo "sandbox: bubblewrap works here; agent processes will run inside it."
else
  echo "sandbox: bubblewrap is not available, so agents would run unsandboxed. The simulated model is fine"
  echo "  without it; before using real API keys install it (Debian/Ubuntu: sudo apt-get install bubblewrap)."
fi

echo "Evaluating the initial agent on: ${domains}"
npx generate-loop --domains "${domains}" --model sim --generations 0 --run-id "initial-$(date +%Y%m%d-%H%M%S)" --quiet
echo "Setup done. Next: npx generate-loop --domains ${domains}"
