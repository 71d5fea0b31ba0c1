"""A scenario argument: a path, TOML text or a dict."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Union

from . import _native

Scenario = Union[str, "os.PathLike[str]", Mapping]


def scenario_source(scenario: Scenario) -> tuple[str | dict, str]:
    """(TOML text or dict, a name for it).

    A ``PathLike`` or a string naming an existing file is read (as the
    ``msctp`` command reads one: a regular file within
    ``MSCTP_MAX_FILE_SIZE`` bytes, else ``OSError``); another string
    holding ``=`` or a newline is TOML text; a mapping is taken as the
    scenario's tables.
    """
    if isinstance(scenario, Mapping):
        return dict(scenario), "scenario"
    if isinstance(scenario, os.PathLike) or (
        isinstance(scenario, str) and os.path.isfile(scenario)
    ):
        path = Path(scenario)
        return _native.read_input(os.fspath(path)), path.stem
    if isinstance(scenario, str):
        if "=" in scenario or "\n" in scenario:
            return scenario, "scenario"
        raise FileNotFoundError(f"no scenario file {scenario!r}")
    raise TypeError(
        f"a scenario is a path, TOML text or a dict, not {type(scenario).__name__}"
    )
