#!/usr/bin/env bash
# Here (no GPU): builds build-dev (Release) and stages what the GPU machine needs into .dev/
# (executables, libraries, ctest files; no object files), small enough to carry.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build-dev >/dev/null
rm -rf .dev && mkdir -p .dev
tar -C . --exclude="*.o" --exclude="*.a" --exclude=CMakeFiles -cf - build-dev | tar -C .dev -xf -
mkdir -p .git/info && touch .git/info/exclude
grep -qxF '/.dev/' .git/info/exclude || echo '/.dev/' >> .git/info/exclude
du -sh .dev
