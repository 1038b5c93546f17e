"""Hypothesis profiles for the fuzz suite, and its tally printed at the end of a run.

"ci" (the default) is bounded and reproducible; `GRAPHKIT_FUZZ=long` selects "long", for
an on-demand run of thousands of graphs per property.
"""

import os

from hypothesis import HealthCheck, settings

from tests.fuzz.tally import TALLY

settings.register_profile(
    "ci",
    max_examples=80,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile(
    "long",
    max_examples=int(os.environ.get("GRAPHKIT_FUZZ_EXAMPLES", "5000")),
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("GRAPHKIT_FUZZ", "ci"))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if TALLY:
        terminalreporter.section("graphkit fuzz tally")
        for key in sorted(TALLY):
            terminalreporter.write_line(f"{key}: {TALLY[key]}")
