#!/usr/bin/env bash
# Creates (or reuses) the local virtualenv .venv with the Python test/build dependencies and
# installs the latpoly package into it the way a user does: `pip install .` (maturin builds the
# wheel in release mode). Run by test.sh.
#
# The build reuses the Cargo target directory ($CARGO_TARGET_DIR, default ./target), so repeated
# runs only recompile what changed. The package lands in .venv's site-packages; nothing is
# written into the source tree, so the tests import the installed wheel.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
if [ ! -x "$root/.venv/bin/python" ]; then
  "$py" -m venv "$root/.venv"
fi
pip=("$root/.venv/bin/python" -m pip --disable-pip-version-check)
"${pip[@]}" install --quiet --upgrade pip
"${pip[@]}" install --quiet -r "$root/scripts/requirements-test.txt"
# --no-build-isolation: build with the maturin just installed (no second download per run);
# maturin's build backend runs the `maturin` executable, hence .venv/bin first on PATH.
# --force-reinstall --no-deps: always replace the installed latpoly (also an older
# `maturin develop` install, whose .pth pointed at the source tree), leave numpy alone.
(cd "$root" && PATH="$root/.venv/bin:$PATH" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" \
  "${pip[@]}" install --quiet --no-build-isolation --force-reinstall --no-deps .)
# The tests must import the installed package, not the source tree.
(cd "$root/.venv" && bin/python - <<'PY'
import os, sys, sysconfig
import latpoly
sites = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}
where = os.path.realpath(os.path.dirname(latpoly.__file__))
if os.path.dirname(where) not in sites:
    sys.exit(f"latpoly is imported from {where}, expected the installed copy in {sites}")
print(f"latpoly {latpoly.__version__} installed in {where}")
PY
)
