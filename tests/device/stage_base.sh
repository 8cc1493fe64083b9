#!/usr/bin/env bash
# Here (no GPU): builds the library, symcoll-perf and symcoll-run of an earlier commit REV
# (e.g. 417ec97, v0.4) in build-base/ and packs them as .dev/build-base.tgz, for the A/B of
# tests/device/ab.sh: both versions timed in one run on the GPU machine, so that drift between
# runs does not pass for a change.
set -euo pipefail
cd "$(dirname "$0")/../.."
REV=${1:?usage: stage_base.sh REV}
SRC=$(mktemp -d)
git worktree add --detach -f "$SRC" "$REV" >/dev/null
trap 'git worktree remove --force "$SRC"' EXIT
rm -rf build-base
cmake -S "$SRC" -B build-base -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build-base symcoll symcoll-perf symcoll-run >/dev/null
mkdir -p .dev
tar -C . -czf .dev/build-base.tgz build-base/libsymcoll.so* build-base/perf/symcoll-perf \
    build-base/perf/symcoll-perf-plot.py build-base/src/launcher/symcoll-run
echo "$REV" > .dev/build-base.rev
du -sh .dev/build-base.tgz
