"""msctp from Python: run mobile-SCTP simulations and the lab's
experiments into pandas, on this machine or a Dask cluster.

- ``msctp.run(scenario, seed=..., overrides={...})``: one simulation;
  every metric by name (``.metrics``) and the time series as DataFrames.
- ``msctp.Experiment.load(path)``: a study of ``experiments/`` (or your
  own experiment file): ``.plan()``, ``.run(executor)``, ``.results()``,
  ``.summary()``, ``.report()``; ``msctp.Experiment.sweep(...)`` is
  ``msctp sweep``.
- ``msctp.reference_scenario()``: the simulator's reference scenario
  (every key with its default), TOML text to start from.

Everything that decides a result (scenario parsing, overrides, plans,
seeds, storage keys, the results store, statistics and the report) is
the Rust lab compiled into ``msctp._native``: results equal those of the
``msctp`` command byte for byte and share its results store.
"""

from ._native import (
    ExperimentError,
    RunFailed,
    ScenarioError,
    __version__,
    model_fingerprint,
    reference_scenario,
)
from ._experiment import Experiment, Report, RunReport
from ._run import RunResult, run

__all__ = [
    "Experiment",
    "ExperimentError",
    "Report",
    "RunFailed",
    "RunReport",
    "RunResult",
    "ScenarioError",
    "__version__",
    "model_fingerprint",
    "reference_scenario",
    "run",
]
