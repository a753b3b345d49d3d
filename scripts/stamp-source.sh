#!/usr/bin/env bash
# Writes SOURCE_COMMIT ("<commit> <true|false dirty>") for copies of the tree that travel without .git
# (the GPU machine): the build reads it when git cannot answer, so results there name their commit.
# The file is git-ignored; send it along (the device tool: carry SOURCE_COMMIT).
set -euo pipefail
cd "$(dirname "$0")/.."
dirty=false
[ -n "$(git status --porcelain --untracked-files=no)" ] && dirty=true
echo "$(git rev-parse HEAD) $dirty" >SOURCE_COMMIT
cat SOURCE_COMMIT
