"""A store look-up that found nothing names where the store keeps those labels: a memory
saved under ("memories", "ada") and searched under ("ada", "memories") is never found,
and the debugger's store tab said only that the search returned [] (agentpass: a memory
bot forgot everything on a new thread). The note is a sentence above the table: in the
``returned`` cell it ran past the table box's edge, out of view."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from graphkit.widgets import DebugSession


class Chat(TypedDict, total=False):
    question: str
    facts: list


def memory_bot(kit: Any) -> Any:
    def recall(state: Chat, runtime: Any) -> dict:
        found = runtime.store.search(("ada", "memories"))  # saved under ("memories", "ada")
        missing = runtime.store.get(("ada", "memories"), "f1")
        kept = runtime.store.search(("memories",))
        return {"facts": [item.value for item in [*found, *kept]] + [missing]}

    builder = kit.StateGraph(Chat)
    builder.add_node("recall", recall)
    return builder.add_edge(kit.START, "recall")


def stepped(app: Any) -> DebugSession:
    session = DebugSession(app, {"question": "what do I love?"})
    session.run()
    session.goto(2)
    return session


HINT = "but the store has memories/ada (the same labels, in another order)"
NOTES = [
    f"step 1, recall: search ada/memories returned [], {HINT}",
    f"step 1, recall: get ada/memories f1 returned None, {HINT}",
]


def test_an_empty_search_and_get_name_the_namespace_with_the_labels_in_another_order():
    import graphkit
    from graphkit.store.memory import InMemoryStore

    store = InMemoryStore()
    store.put(("memories", "ada"), "f1", {"fact": "loves sailing"})
    session = stepped(memory_bot(graphkit).compile(store=store))
    table = session.view().tables["store"]
    assert table[["op", "namespace", "returned"]].values.tolist() == [
        ["search", "ada/memories", "[] (see the note above)"],
        ["get", "ada/memories", "None (see the note above)"],
        ["search", "memories", table["returned"].iloc[2]],
    ]
    assert "note" not in table["returned"].iloc[2]  # it found the memory
    assert table.attrs["notes"] == NOTES


def test_the_note_is_a_wrapped_sentence_above_the_table_not_in_a_cell():
    import graphkit
    from graphkit.store.memory import InMemoryStore

    store = InMemoryStore()
    store.put(("memories", "ada"), "f1", {"fact": "loves sailing"})
    html = stepped(memory_bot(graphkit).compile(store=store)).view().table_html("store")
    notes, table = html.split('<div class="gk-table-box"', 1)
    style = "white-space:normal;overflow-wrap:anywhere;line-height:1.4;margin:4px 0"
    assert notes == "".join(f'<p class="gk-table-note" style="{style}">{n}</p>' for n in NOTES)
    assert "the store has" not in table and "[] (see the note above)" in table


def test_a_langgraph_store_gets_the_same_hint():
    pytest.importorskip("langgraph")
    import langgraph.graph
    from langgraph.store.memory import InMemoryStore

    store = InMemoryStore()
    store.put(("memories", "ada"), "f1", {"fact": "loves sailing"})
    kit = type("kit", (), vars(langgraph.graph))
    session = stepped(memory_bot(kit).compile(store=store))
    table = session.view().tables["store"]
    assert table["returned"].tolist()[:2] == [
        "[] (see the note above)",
        "None (see the note above)",
    ]
    assert table.attrs["notes"] == NOTES


def test_nothing_is_added_when_no_namespace_holds_the_labels():
    import graphkit
    from graphkit.store.memory import InMemoryStore

    store = InMemoryStore()
    store.put(("notes", "bob"), "f1", {"fact": "likes tea"})
    session = stepped(memory_bot(graphkit).compile(store=store))
    table = session.view().tables["store"]
    assert table["returned"].tolist()[:2] == ["[]", "None"]
    assert table.attrs.get("notes", []) == []
    assert "gk-table-note" not in session.view().table_html("store")


def test_a_namespace_with_more_labels_is_not_called_the_same_labels():
    """("memories", "ada", "old") holds the labels searched and one more: the note said
    "the same labels, in another order" of it, which is not what it holds."""
    import graphkit
    from graphkit.store.memory import InMemoryStore

    store = InMemoryStore()
    store.put(("memories", "ada", "old"), "f0", {"fact": "liked tea"})
    session = stepped(memory_bot(graphkit).compile(store=store))
    assert session.view().tables["store"].attrs["notes"][0] == (
        "step 1, recall: search ada/memories returned [], but the store has "
        "memories/ada/old (these labels and more)"
    )
    store.put(("memories", "ada"), "f1", {"fact": "loves sailing"})
    session = stepped(memory_bot(graphkit).compile(store=store))
    assert session.view().tables["store"].attrs["notes"][0] == (
        "step 1, recall: search ada/memories returned [], but the store has "
        "memories/ada (the same labels, in another order) and memories/ada/old (these "
        "labels and more)"
    )
