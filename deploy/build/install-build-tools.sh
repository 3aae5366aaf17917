#!/usr/bin/env bash
# The Docker build stage's install: the run-time dependencies plus only what compiling needs
# (tsc and the type packages), at their locked versions. Rewrites ./package.json in place, so run
# it in a copy of the sources (the image's build stage, or CI's copy of the build context), never
# in a working checkout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
node "$here/prune-package.mjs" --keep-workspaces package.json 'typescript,@types/*'
npm ci --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error
