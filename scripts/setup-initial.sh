#!/usr/bin/env bash
# One-time setup for a fresh clone: installs dependencies, checks the tools the harness needs, and
# evaluates the initial agent so later runs reuse its results. Each step says what it is doing; the
# install, which takes minutes, says how far it has got every 10 seconds.
#   npm run setup                       # the arithmetic domain
#   npm run setup -- arithmetic,other   # several domains
#   npm run setup -- --polyglot         # also the Debian packages that grade the Polyglot benchmark
set -euo pipefail
cd "$(dirname "$0")/.."
domains=arithmetic
polyglot=0
for arg in "$@"; do
  case "$arg" in
    --polyglot) polyglot=1 ;;
    -*) echo "setup: unknown option $arg (npm run setup -- [--polyglot] [domains])" >&2; exit 2 ;;
    *) domains="$arg" ;;
  esac
done

fail() { echo "setup: $*" >&2; exit 1; }
step() { echo "setup [$1/4] $2"; }

step 1 "checking Node.js and git"
command -v node >/dev/null || fail "Node.js is not installed. Install Node 20.19 or newer from https://nodejs.org."
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  || fail "Node $(node --version) is too old: hyperagents-ts needs Node 20.19 or newer."
command -v git >/dev/null || fail "git is not installed: the harness keeps every agent variant in a git repository. Install git and run again."
echo "node $(node --version), $(git --version)"

# Packages of the lock file in node_modules so far, of all it needs.
installed() {
  node -e '
    const fs = require("node:fs");
    // Optional packages are left out of the count: most are for other platforms and never installed.
    const paths = Object.entries(require("./package-lock.json").packages)
      .filter(([p, pkg]) => p !== "" && !pkg.optional)
      .map(([p]) => p);
    const done = paths.filter((p) => fs.existsSync(`${p}/package.json`)).length;
    console.log(
      done < paths.length
        ? `${done} of ${paths.length} packages unpacked`
        : `all ${done} packages unpacked; running their install scripts (a native build such as better-sqlite3 can take a minute or two)`,
    );
  ' 2>/dev/null || echo "in progress"
}

if [ -f package-lock.json ]; then
  step 2 "installing dependencies with npm ci (a few minutes the first time)"
  npm ci --no-audit --no-fund &
else
  step 2 "installing dependencies with npm install (a few minutes the first time)"
  npm install --no-audit --no-fund &
fi
npm_pid=$!
started=$SECONDS
last=$SECONDS
while kill -0 "$npm_pid" 2>/dev/null; do
  sleep 1
  if [ $((SECONDS - last)) -ge 10 ]; then
    last=$SECONDS
    if [ -f package-lock.json ]; then
      echo "setup: still installing ($((SECONDS - started)) s): $(installed)"
    else
      echo "setup: still installing ($((SECONDS - started)) s)"
    fi
  fi
done
wait "$npm_pid" || fail "installing the dependencies failed (npm's messages are above). Fix what they name and run npm run setup again."
echo "setup: dependencies installed in $((SECONDS - started)) s"
# npm ci builds the commands too (the "prepare" script), unless scripts are turned off in npm's config.
if built="$(node scripts/build-commands.mjs)"; then
  echo "setup: ${built}"
else
  echo "setup: the commands will run from their TypeScript sources, a slower start (the build's message is above)."
fi

step 3 "checking the sandbox (bubblewrap)"
if command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-net true 2>/dev/null; then
  echo "sandbox: bubblewrap works here; agent processes will run inside it."
else
  echo "sandbox: bubblewrap is not available, so agents would run unsandboxed. The simulated model is fine"
  echo "  without it; before using real API keys install it (Debian/Ubuntu: sudo apt-get install bubblewrap)."
fi

# The Polyglot benchmark's toolchains and libraries, from Debian (scripts/polyglot-packages.txt).
packages=()
while read -r pkg; do packages+=("$pkg"); done < <(grep -v '^#' scripts/polyglot-packages.txt)
missing=()
if command -v dpkg >/dev/null; then
  for pkg in "${packages[@]}"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
fi
if ! command -v dpkg >/dev/null; then
  echo "polyglot: not a Debian system; exercism: domains need the toolchains named in scripts/polyglot-packages.txt."
elif [ ${#missing[@]} -eq 0 ]; then
  echo "polyglot: all ${#packages[@]} Debian packages that grade the Polyglot benchmark are installed."
elif [ "$polyglot" = 1 ]; then
  echo "polyglot: installing ${missing[*]}"
  sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq "${missing[@]}" \
    || fail "installing the Polyglot packages failed (apt-get's messages are above): install them with apt-get install ${missing[*]}"
else
  echo "polyglot: ${#missing[@]} of ${#packages[@]} Debian packages that grade the Polyglot benchmark (exercism: domains) are"
  echo "  missing; npm run setup -- --polyglot installs them (or: sudo apt-get install ${missing[*]})."
fi

step 4 "evaluating the initial agent on ${domains} with the simulated model"
npx generate-loop --domains "${domains}" --model sim --generations 0 --run-id "initial-$(date +%Y%m%d-%H%M%S)" --quiet
echo "Setup done. Next: npx generate-loop --domains ${domains}"
