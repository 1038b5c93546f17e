"""What a task's config says about where it runs, as LangGraph says it: its
``configurable`` has ``checkpoint_ns``, ``checkpoint_id`` (None: a task runs from its
step's checkpoint, named in the map) and ``checkpoint_map``, the checkpoint each graph
run it is in runs from, by namespace (the root's under ``""``)."""

from __future__ import annotations

import re
from typing import Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS

_IDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class State(TypedDict):
    x: int


def _get_config(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.config import get_config
    else:
        from graphkit.config import get_config
    return get_config


def _observe(lib: Lib, saver_kind: str | None) -> dict[str, Any]:
    get_config = _get_config(lib)
    seen: dict[str, dict[str, Any]] = {}

    def inner(state: dict) -> dict:
        seen["inner"] = dict(get_config()["configurable"])
        return {"x": 1}

    def outer(state: dict, config) -> dict:  # type: ignore[no-untyped-def]
        seen["outer"] = dict(config["configurable"])
        return {"x": 2}

    sub = lib.StateGraph(State).add_node("inner", inner).add_edge(lib.START, "inner").compile()
    builder = lib.StateGraph(State).add_node("outer", outer).add_node("sub", sub)
    builder.add_edge(lib.START, "outer").add_edge("outer", "sub")
    config = {"configurable": {"thread_id": "t", "user": "u"}}

    def shapes(saved: set[str]) -> dict[str, Any]:
        """Each task's configurable, ids as placeholders; a map's ids marked saved or not."""
        shown = {}
        for task, configurable in seen.items():
            mapped = {
                _IDS.sub("<id>", ns): (saver_kind is None or checkpoint in saved)
                for ns, checkpoint in configurable.pop("checkpoint_map").items()
            }
            shown[task] = {
                **{k: _IDS.sub("<id>", str(v)) for k, v in configurable.items() if k[:2] != "__"},
                "checkpoint_map": mapped,
            }
        return shown

    if saver_kind is None:
        builder.compile().invoke({"x": 0}, config)
        return shapes(set())
    with SAVERS[saver_kind](lib.name) as saver:
        app = builder.compile(checkpointer=saver)
        app.invoke({"x": 0}, config)
        saved = {t.config["configurable"]["checkpoint_id"] for t in saver.list(None)}
        return shapes(saved)


@pytest.mark.parametrize("saver", [None, *SAVERS])
def test_a_tasks_config_names_the_checkpoints_it_runs_from(saver):
    expected = _observe(load_langgraph(), saver)
    assert _observe(load_graphkit(), saver) == expected
    assert expected["inner"]["checkpoint_map"] == {"": True, "sub:<id>": True}
    assert expected["outer"]["checkpoint_id"] == "None"


def _called_maps(name: str) -> dict[str, dict[str, str]]:
    import importlib

    package = "langgraph" if name == "langgraph" else "graphkit"
    func = importlib.import_module(f"{package}.func")
    get_config = importlib.import_module(f"{package}.config").get_config
    seen: dict[str, dict[str, str]] = {}

    @func.task
    def inner(x: int) -> int:
        seen["inner"] = get_config()["configurable"]["checkpoint_map"]
        return x

    @func.task
    def outer(x: int) -> int:
        seen["outer"] = get_config()["configurable"]["checkpoint_map"]
        return inner(x).result()

    @func.entrypoint()
    def main(x: int) -> int:
        seen["main"] = get_config()["configurable"]["checkpoint_map"]
        return outer(x).result()

    main.invoke(1)
    names: dict[str, str] = {}  # each checkpoint id by the order it is first met
    return {
        task: {_IDS.sub("<id>", ns): names.setdefault(i, f"c{len(names)}") for ns, i in m.items()}
        for task, m in seen.items()
    }


def test_a_called_tasks_map_names_its_run_under_each_caller():
    expected = _called_maps("langgraph")
    assert _called_maps("graphkit") == expected
    assert expected["inner"] == {"": "c0", "main:<id>": "c0", "main:<id>|outer:<id>": "c0"}


def _start_router_metadata(lib: Lib) -> list[dict[str, Any]]:
    """What a router on START reads of its task's config from LangChain's context (START
    without routers runs no code of the user's, and graphkit builds it no config)."""
    from langchain_core.runnables.config import ensure_config

    seen = []

    def route(state: dict) -> str:
        metadata = ensure_config()["metadata"]
        seen.append({k: v for k, v in metadata.items() if k.startswith("langgraph_")})
        return "a"

    builder = lib.StateGraph(State).add_node("a", lambda state: {"x": 1})
    builder.add_conditional_edges(lib.START, route)
    builder.compile().invoke({"x": 0})
    return [
        {**each, "langgraph_checkpoint_ns": _IDS.sub("<id>", each["langgraph_checkpoint_ns"])}
        for each in seen
    ]


def test_a_router_on_start_reads_its_tasks_config_from_langchains_context():
    expected = _start_router_metadata(load_langgraph())
    assert _start_router_metadata(load_graphkit()) == expected
    assert expected[0]["langgraph_node"] == "__start__"
