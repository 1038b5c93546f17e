"""Programs from LangGraph's own how-to guides and concept pages (docs.langchain.com,
`src/oss/*.mdx`), run on both libraries: what they print, return and stream is the same.

Each test keeps the documented program's shape; chat models are replaced by scripted ones.
"""

from typing import Any, TypedDict

import pytest

LIBRARIES = ("langgraph", "graphkit")


def _import(library: str, path: str) -> Any:
    import importlib

    if library == "graphkit":
        path = "graphkit" + path.removeprefix("langgraph")
    return importlib.import_module(path)


class Essay(TypedDict):
    topic: str
    content: str | None
    score: float | None


def _channel_kinds(channels: dict[str, Any]) -> dict[str, str]:
    return {name: type(channel).__name__ for name, channel in channels.items()}


@pytest.mark.parametrize("library", LIBRARIES)
def test_pregel_page_lists_the_send_channel_of_low_level_graphs(library: str) -> None:
    """pregel.mdx prints `app.channels` of a `Pregel` and of an `@entrypoint`: both hold the
    `__pregel_tasks` Topic the runtime adds, after the channels given."""
    channels = _import(library, "langgraph.channels")
    pregel = _import(library, "langgraph.pregel")
    func = _import(library, "langgraph.func")
    node = pregel.NodeBuilder().subscribe_only("a").do(lambda x: x + x).write_to("b")
    given = {"a": channels.EphemeralValue(str), "b": channels.EphemeralValue(str)}
    app = pregel.Pregel(
        nodes={"node1": node}, channels=given, input_channels=["a"], output_channels=["b"]
    )
    assert _channel_kinds(app.channels) == {
        "a": "EphemeralValue",
        "b": "EphemeralValue",
        "__pregel_tasks": "Topic",
    }
    assert app.invoke({"a": "foo"}) == {"b": "foofoo"}
    assert list(app.stream({"a": "foo"}, stream_mode="values")) == [{"b": "foofoo"}]
    copied = app.with_config(recursion_limit=5)
    assert list(copied.channels) == ["a", "b", "__pregel_tasks"]
    assert copied.invoke({"a": "x"}) == {"b": "xx"}

    @func.entrypoint()
    def write_essay(essay: Essay) -> dict[str, str]:
        return {"content": f"Essay about {essay['topic']}"}

    assert sorted(_channel_kinds(write_essay.channels).items()) == [
        ("__end__", "LastValue"),
        ("__pregel_tasks", "Topic"),
        ("__previous__", "LastValue"),
        ("__start__", "EphemeralValue"),
    ]


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_pregel_built_from_anothers_channels_takes_their_send_channel(library: str) -> None:
    """`Pregel(channels={**other.channels, ...})` hands the runtime's own `__pregel_tasks`
    Topic back: it is accepted (and replaced); any other channel under that name is not."""
    channels = _import(library, "langgraph.channels")
    pregel = _import(library, "langgraph.pregel")
    node = pregel.NodeBuilder().subscribe_only("a").do(lambda x: x * 2).write_to("b")
    first = pregel.Pregel(
        nodes={"double": node},
        channels={"a": channels.LastValue(int), "b": channels.LastValue(int)},
        input_channels="a",
        output_channels="b",
    )
    second = pregel.Pregel(
        nodes=first.nodes,
        channels={**first.channels, "c": channels.LastValue(int)},
        input_channels="a",
        output_channels="b",
    )
    assert second.invoke(4) == 8
    assert list(second.channels) == ["a", "b", "__pregel_tasks", "c"]
    with pytest.raises(ValueError, match="__pregel_tasks"):
        pregel.Pregel(
            nodes=first.nodes,
            channels={"a": channels.LastValue(int), "b": channels.LastValue(int),
                      "__pregel_tasks": channels.LastValue(int)},
            input_channels="a",
            output_channels="b",
        )  # fmt: skip
