"""What a v3 run asks of the transformers it is given, compared with LangGraph's: what
``init()`` may return (a dict; names no other transformer took), what is refused when
the run starts, ``run.extensions`` read-only, a transformer whose ``fail`` raises, and
``interleave`` naming a projection twice."""

from __future__ import annotations

import operator

import pytest

from .stream_v3_programs import INPUT, THREAD, chain, nested, outcome
from .test_parity_stream_v3 import assert_same

pytestmark = pytest.mark.filterwarnings("ignore:The v3 streaming protocol")


def projections(lib, returned):
    """A transformer class whose ``init()`` returns ``returned()``."""

    class Projections(lib.stream.StreamTransformer):
        def init(self):
            return returned()

        def process(self, event):
            return True

    return Projections


def started(lib, transformers):
    """How starting a v3 run of ``chain`` with ``transformers`` ends: its output, or the
    error (type and message) it was refused with."""
    try:
        return chain(lib).stream_events(INPUT, THREAD, version="v3", transformers=transformers)
    except (TypeError, ValueError) as error:
        return outcome(error)


@pytest.mark.parametrize("returned", [list, lambda: None], ids=["a list", "None"])
def test_init_must_return_a_dict(returned):
    seen = assert_same(lambda lib: started(lib, [projections(lib, returned)]).split(":")[0])
    assert seen == "TypeError"


@pytest.mark.parametrize("taken", ["values", "lifecycle", "counts"])
def test_a_projection_name_is_taken_once(taken):
    def program(lib):
        makes = projections(lib, lambda: {taken: lib.stream.StreamChannel()})
        refused = started(lib, [makes, makes])
        return refused.split("; give")[0]  # (graphkit's says how to fix it, too)

    seen = assert_same(program)
    assert seen.startswith("ValueError: Transformer Projections returned projection keys")


def test_a_built_in_transformer_given_again_is_refused():
    def program(lib):
        return started(lib, [lib.stream.LifecycleTransformer]).split("; give")[0]

    assert "'lifecycle' (owned by LifecycleTransformer)" in assert_same(program)


def test_a_transformer_is_given_as_a_callable():
    def program(lib):
        refused = started(lib, [42])
        return refused.split(". Pass")[0].rstrip(".")

    assert assert_same(program).startswith("TypeError: stream_events(version='v3')")


def test_extensions_are_read_only():
    def program(lib):
        run = chain(lib).stream_events(INPUT, THREAD, version="v3")
        refused = []
        changes = (
            lambda: operator.setitem(run.extensions, "new", 1),
            lambda: operator.delitem(run.extensions, "values"),
        )
        for change in changes:
            try:
                change()
            except TypeError as error:
                refused.append(type(error).__name__)
        return refused, sorted(run.extensions), run.values is run.extensions["values"]

    assert assert_same(program)[0] == ["TypeError", "TypeError"]


@pytest.mark.parametrize("program", [chain, nested], ids=["root", "in-a-subgraph"])
def test_a_failing_fail_leaves_the_run_its_error(program):
    def run(lib):
        heard = []

        class Broken(lib.stream.StreamTransformer):
            def init(self):
                return {}

            def process(self, event):
                return True

            def fail(self, err):
                raise RuntimeError("fail handler broke")

        class Listening(Broken):
            def fail(self, err):
                heard.append(outcome(err))

        app = program(lib, fail=True)
        stream = app.stream_events(INPUT, THREAD, version="v3", transformers=[Broken, Listening])
        try:
            return stream.output
        except Exception as error:
            return outcome(error), heard

    seen = assert_same(run)
    assert seen[0].startswith("ValueError")


def test_interleave_reads_a_projection_once():
    def program(lib):
        run = chain(lib).stream_events(INPUT, THREAD, version="v3")
        with pytest.raises(RuntimeError) as raised:
            list(run.interleave("values", "values"))
        return str(raised.value)

    assert "'values' already has a subscriber" in assert_same(program)
