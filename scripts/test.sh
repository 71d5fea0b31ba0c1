#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs the system
# packages the tests need, checks formatting and lints, then runs the whole
# suite optimised (profile `ci`: release speed, debug assertions on), then
# the Python package's tests and example notebooks against that build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace --profile ci
scripts/test-python.sh
