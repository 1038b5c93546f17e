"""The JSON schemas of a graph without a state schema, as LangGraph makes them: an
entrypoint's input is its first parameter's annotation and its output its return
annotation (``entrypoint.final[value, save]``: the value's); a low-level ``Pregel``'s
are the types of its one input and output channel. Titled by the graph's name."""

from typing import Any

import pytest

from .func_programs import side


def _entrypoints(name: str) -> list[Any]:
    s = side(name)

    @s.entrypoint()
    def typed(x: int) -> str:
        return str(x)

    @s.entrypoint()
    def untyped(x):  # type: ignore[no-untyped-def]
        return x

    @s.entrypoint()
    def containers(x: dict[str, Any]) -> list[int]:
        return []

    @s.entrypoint()
    def final(x: list[int], *, previous: int | None = None) -> s.entrypoint.final[int, str]:
        return s.entrypoint.final(value=1, save="s")

    return [typed, untyped, containers, final]


def _low_level(name: str) -> Any:
    if name == "langgraph":
        from langgraph.channels import EphemeralValue, LastValue
        from langgraph.pregel import NodeBuilder, Pregel
    else:
        from graphkit.channels import EphemeralValue, LastValue
        from graphkit.pregel import NodeBuilder, Pregel
    node = NodeBuilder().subscribe_only("a").do(lambda text: len(text)).write_to("b")
    channels = {"a": EphemeralValue(str), "b": LastValue(int)}
    return Pregel(nodes={"n": node}, channels=channels, input_channels="a", output_channels="b")


def _schemas(apps: list[Any]) -> list[tuple[dict, dict]]:
    return [(app.get_input_jsonschema(), app.get_output_jsonschema()) for app in apps]


@pytest.mark.parametrize("kind", ["entrypoints", "low-level Pregel"])
def test_a_graph_without_a_state_schema_has_langgraphs_json_schemas(kind):
    def observe(name: str) -> list[tuple[dict, dict]]:
        return _schemas(_entrypoints(name) if kind == "entrypoints" else [_low_level(name)])

    expected = observe("langgraph")
    assert observe("graphkit") == expected
    assert expected[0][0]["type"] in ("integer", "string")
