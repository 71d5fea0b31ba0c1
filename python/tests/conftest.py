"""Shared fixtures: the repository, the `msctp` command the results are
compared with, and scenario files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXPERIMENTS = REPO / "experiments"
REFERENCE = REPO / "crates/sim/src/scenario/reference.toml"


def _msctp_bin() -> Path:
    given = os.environ.get("MSCTP_BIN")
    candidates = [Path(given)] if given else [
        REPO / "target/ci/msctp",
        REPO / "target/release/msctp",
    ]
    for c in candidates:
        if c.is_file():
            return c
    raise RuntimeError(
        "no msctp executable to compare with: build it (cargo build --profile ci -p msctp) "
        "or set MSCTP_BIN"
    )


@pytest.fixture(scope="session")
def msctp_bin() -> Path:
    """The command, checked to run the same model build as the extension
    (else stored runs would not be shared and results would differ)."""
    import msctp

    b = _msctp_bin()
    version = subprocess.run([str(b), "--version"], capture_output=True, text=True).stdout
    want = f"(model {msctp.model_fingerprint()})"
    if want not in version:
        raise RuntimeError(
            f"{b} is not the build of this extension: {version.strip()!r}, extension {want}; "
            "rebuild both from the same tree (scripts/test-python.sh does)"
        )
    return b


@pytest.fixture(scope="session")
def cli(msctp_bin):
    """Runs `msctp ARGS...` in a directory; returns the completed process."""

    def go(*args: str, cwd: Path | None = None, check: bool = True):
        p = subprocess.run(
            [str(msctp_bin), *map(str, args)],
            cwd=cwd,
            capture_output=True,
            text=True,
        )
        if check and p.returncode != 0:
            raise AssertionError(f"msctp {' '.join(map(str, args))}: {p.returncode}\n{p.stdout}{p.stderr}")
        return p

    return go


@pytest.fixture(scope="session")
def short_reference(tmp_path_factory) -> Path:
    """The reference scenario (mSCTP soft handover) shortened to 12 s,
    without captures."""
    text = REFERENCE.read_text().replace("duration_s = 30.0", "duration_s = 12.0")
    text = "\n".join("pcap = []" if l.startswith("pcap = ") else l for l in text.splitlines())
    path = tmp_path_factory.mktemp("scenario") / "ref.toml"
    path.write_text(text)
    return path


def cli_run_json(cli, scenario: Path, *args: str) -> list[dict]:
    return json.loads(cli("run", scenario, "--json", *args).stdout)


def without_wall_time(csv_text: str) -> list[list[str]]:
    """runs.csv without its wall_time_s column (a measured time)."""
    rows = [line.split(",") for line in csv_text.splitlines()]
    col = rows[0].index("wall_time_s")
    return [r[:col] + r[col + 1 :] for r in rows]
