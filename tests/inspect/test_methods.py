"""The records' methods are the view functions, attached by ``import graphkit``; the
declarations type checkers read in records.py match them."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import graphkit.pregel.records as records
from graphkit.inspect import examples
from graphkit.inspect.methods import METHODS, attach
from graphkit.inspect.tables import run_frame
from graphkit.inspect.why import why


def declared_for_type_checkers() -> dict[tuple[str, str], ast.FunctionDef]:
    """``(class, method) -> def`` for each method records.py declares under
    ``if TYPE_CHECKING:`` in a class body."""
    tree = ast.parse(Path(records.__file__).read_text())
    return {
        (cls.name, function.name): function
        for cls in tree.body
        if isinstance(cls, ast.ClassDef)
        for block in cls.body
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for function in block.body
        if isinstance(function, ast.FunctionDef)
    }


def parameters(function: object) -> list[tuple[str, object, object]]:
    """Name, kind and default of each parameter after the first (``self``)."""
    signature = inspect.signature(function)  # type: ignore[arg-type]
    return [(p.name, p.kind, p.default) for p in list(signature.parameters.values())[1:]]


def test_importing_graphkit_gave_the_records_their_methods():
    counter_run = examples.counter_run()
    assert records.Run.to_frame is run_frame and records.Run.why is why
    assert str(counter_run) == counter_run.timeline()
    assert counter_run._repr_html_().startswith("<")
    assert counter_run.steps[1].to_frame()["phase"].tolist()


def test_attaching_again_changes_nothing():
    before = {record: dict(vars(record)) for record in METHODS}
    attach()
    assert {record: dict(vars(record)) for record in METHODS} == before


def test_every_record_has_its_card():
    assert {record.__name__ for record in METHODS} == {
        name for name in records.__all__ if name[0].isupper()
    }
    assert all("_repr_html_" in methods for methods in METHODS.values())


def test_each_public_method_is_declared_for_type_checkers():
    declared = {pair[1] for pair in declared_for_type_checkers()}
    attached = {
        name for methods in METHODS.values() for name in methods if not name.startswith("_")
    }
    assert declared == attached


@pytest.mark.parametrize(
    "pair", sorted(declared_for_type_checkers()), ids=lambda pair: ".".join(pair)
)
def test_the_declaration_matches_the_attached_function(pair):
    cls, name = pair
    namespace: dict[str, object] = {}
    source = "from __future__ import annotations\n" + ast.unparse(
        declared_for_type_checkers()[pair]
    )
    exec(source, namespace)
    attached = METHODS[getattr(records, cls)][name]
    assert parameters(namespace[name]) == parameters(attached)
