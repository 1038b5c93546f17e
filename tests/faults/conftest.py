"""The fault suite's tally, printed at the end of a run (``tally.py``), and the result of
the graph run once without faults, which every faulted run must reach."""

import pytest

from tests.faults.harness import run_child
from tests.faults.tally import LONG, TALLY


@pytest.fixture(scope="session")
def uninterrupted(tmp_path_factory):
    """The graph of ``graph_child`` run to the end, never killed: its values, and how
    many kill points each phase offers."""
    outcome = run_child(str(tmp_path_factory.mktemp("uninterrupted") / "run.db"), "t")
    assert outcome.returncode == 0, outcome.stderr
    return outcome.result


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if TALLY:
        mode = "long (GRAPHKIT_FAULTS=long)" if LONG else "ci"
        terminalreporter.section(f"graphkit fault tally, {mode}")
        for key in sorted(TALLY):
            terminalreporter.write_line(f"{key}: {TALLY[key]}")
