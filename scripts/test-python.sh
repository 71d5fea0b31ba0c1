#!/usr/bin/env bash
# The Python package (python/): builds its wheel with maturin from the
# artifacts `cargo test --workspace --profile ci` left in target/ci (same
# profile and target directory, so only the extension itself is compiled),
# installs it into a virtual environment (target/py-venv) with the pinned
# test dependencies, then runs its pytest suite and the example notebooks
# against the `msctp` command built beside it (target/ci/msctp).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=$root/target/py-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check -r python/requirements-dev.txt
if [ ! -x target/ci/msctp ]; then
    cargo build --profile ci -p msctp
fi
rm -rf target/wheels
sims() { find target/ci/deps -name 'libmsctp_sim-*.rlib' 2>/dev/null | sort; }
before=$(sims)
VIRTUAL_ENV=$venv PATH=$venv/bin:$PATH \
    maturin build --quiet --profile ci --manifest-path python/Cargo.toml --out target/wheels
if [ -n "$before" ] && [ "$(sims)" != "$before" ]; then
    echo "warning: the extension compiled the simulator a second time: a shared dependency's" \
        "features differ between the workspace and python/ alone (see python/Cargo.toml)" >&2
fi
"$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps target/wheels/msctp-*.whl
MSCTP_BIN=$root/target/ci/msctp "$venv/bin/pytest" -q -p no:cacheprovider python/tests
