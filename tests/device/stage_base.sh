#!/usr/bin/env bash
# Here (no GPU): builds the library, symcoll-perf and symcoll-run of an earlier commit REV
# (e.g. 417ec97, v0.4) in build-base/ and packs them as .dev/build-base.tgz, for the A/B of
# tests/device/ab.sh: both versions timed in one run on the GPU machine, so that drift between
# runs does not pass for a change.
set -euo pipefail
cd "$(dirname "$0")/../.."
REV=${1:?usage: stage_base.sh REV [DIR]}
DIR=${2:-build-base}
SRC=$(mktemp -d)
git worktree add --detach -f "$SRC" "$REV" >/dev/null
trap 'git worktree remove --force "$SRC"' EXIT
rm -rf "$DIR"
cmake -S "$SRC" -B "$DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$DIR" symcoll symcoll-perf symcoll-run >/dev/null
mkdir -p .dev
tar -C . -czf ".dev/$DIR.tgz" "$DIR"/libsymcoll.so* "$DIR/perf/symcoll-perf" \
    "$DIR/perf/symcoll-perf-plot.py" "$DIR/src/launcher/symcoll-run"
echo "$REV" > ".dev/$DIR.rev"
du -sh ".dev/$DIR.tgz"
