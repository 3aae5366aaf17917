#!/usr/bin/env bash
# The production build outside Docker: the same steps as deploy/Dockerfile, into one directory that
# looks exactly like the image's /app (compiled JavaScript in dist/, package files, and only the
# production dependencies in node_modules/). CI runs it (test/deploy/production-build.test.ts) and
# starts every service from the result with plain `node`.
#
#   deploy/build/production-build.sh <out-dir>
#   node <out-dir>/dist/services/auth/main.js    # or catalogue, authoring, detection
#   node <out-dir>/dist/gateway/main.js
#
# Needs tsc installed in the repository (a developer checkout, or install-build-tools.sh in the
# image's build stage), and the npm cache or registry for `npm ci --omit=dev` (--prefer-offline:
# the cache answers when it can).
set -euo pipefail

if [ "$#" -ne 1 ]; then
  echo "usage: $0 <out-dir>" >&2
  exit 2
fi
repo="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
if [ -n "$(ls -A "$out")" ]; then
  echo "$out is not empty: refusing to build into it" >&2
  exit 2
fi

# 1. Compile (TypeScript 7, native). A type error fails the build: nothing unchecked ships.
"$repo/node_modules/.bin/tsc" -p "$repo/tsconfig.build.json" --outDir "$out/dist"

# 2. Production dependencies only, exactly as locked (see prune-package.mjs for why package.json
#    loses its devDependencies first). --ignore-scripts: no install script runs.
cp "$repo/package.json" "$repo/package-lock.json" "$out/"
node "$repo/deploy/build/prune-package.mjs" "$out/package.json"
(cd "$out" && npm ci --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error)

# 3. The project's own packages (npm workspaces in the source tree): their compiled code and a
#    package.json naming the .js files, in node_modules/@movement-detection/ as any dependency.
node "$repo/deploy/build/place-packages.mjs" "$repo" "$out"

# 4. Files read at run time, besides the compiled code (keep in step with deploy/Dockerfile and
#    .dockerignore). None yet: every service reads only its environment and MongoDB.
