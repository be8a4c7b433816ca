#!/bin/sh
# extract.sh RYEOS TOOLREGISTRY_HUB TUNACODE OUT: writes the upstream files the probe runs, at the commits
# the specs cite, from local clones of leolilley/ryeos, Oaklight/toolregistry-hub and
# alchemiststudiosDOTai/tunacode, into OUT (with the stubs tunacode imports around its bash.py).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$4"
git -C "$1" show 1697409f029bb05332de45a01e519ffb936b86cd:rye/rye/.ai/tools/rye/bash/bash.py > "$4/rye_bash.py"
git -C "$2" show 12575618ccee5599bfa8a42278d9a59619ba3df4:src/toolregistry_hub/bash_tool.py > "$4/toolregistry_bash.py"
cp -R "$here/stubs" "$4/stubs"
git -C "$3" show 529f1380:src/tunacode/tools/bash.py > "$4/stubs/tunacode/tools/bash.py"
