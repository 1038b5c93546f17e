"""A node that sets a key in the state it was given (``state["revisions"] += 1``) and
does not return it loses the change, in LangGraph as in graphkit, and a loop whose exit
flag is set so never ends; the views said nothing of it (agentpass: a writer/critic
loop ran to the recursion limit, its critic's ``approved = True`` lost). The records
keep the dict the node was given, so the timeline and the card say which key was lost,
and the recursion limit's last line why the loop did not end."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

langgraph = pytest.importorskip("langgraph")


class Loop(TypedDict, total=False):
    draft: str
    revisions: int
    approved: bool
    notes: list


def reflection(kit: Any, *, returned: bool = False) -> Any:
    """write → critique → (write again, or END once approved or revised 3 times)."""

    def write(state: Loop) -> dict:
        state["revisions"] += 1  # lost unless returned
        out = {"draft": f"draft {state['revisions']}"}
        return {**out, "revisions": state["revisions"]} if returned else out

    def critique(state: Loop) -> dict:
        state["notes"].append("read")  # the channel's own list, changed in place
        if state["draft"] == "draft 1":
            state["approved"] = True  # lost: never returned
        return {}

    def route(state: Loop) -> str:
        return kit.END if state["approved"] or state["revisions"] >= 3 else "write"

    builder = kit.StateGraph(Loop)
    builder.add_node("write", write)
    builder.add_node("critique", critique)
    builder.add_edge(kit.START, "write").add_edge("write", "critique")
    builder.add_conditional_edges("critique", route, ["write", kit.END])
    return builder.compile()


INPUT = {"revisions": 0, "approved": False, "notes": []}


def kits() -> tuple[Any, Any]:
    import langgraph.graph

    import graphkit

    return type("kit", (), vars(langgraph.graph)), graphkit


def words(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines()]


def test_the_lost_keys_are_named_where_the_loop_is_read_as_langgraph_lost_them():
    from langgraph.errors import GraphRecursionError

    lang, kit = kits()
    config = {"recursion_limit": 6}
    with pytest.raises(GraphRecursionError):  # LangGraph loses them too
        reflection(lang).invoke(dict(INPUT, notes=[]), config)
    with pytest.raises(kit.GraphRecursionError) as raised:
        reflection(kit).trace(dict(INPUT, notes=[]), config)
    run = raised.value.run  # type: ignore[attr-defined]
    assert run.to_frame("state")["revisions"].tolist()[1:] == [0] * 7
    lines = words(run.timeline(width=None))
    write = "set revisions to 1 (it read 0) in the state it was given, and did not return it: lost"
    assert f"EXECUTE write wrote draft, branch:to:critique; {write}" in lines
    approved = (
        "set approved to True (it read False) in the state it was given, and did not "
        "return it: lost"
    )
    assert f"EXECUTE critique wrote branch:to:write; {approved}" in lines
    assert lines[-1] == (
        "the run stopped before step 7: the recursion limit was reached "
        "(GraphRecursionError); write and critique set revisions and approved in the "
        "state they were given without returning them, so revisions and approved never "
        "changed: a node changes the state only by what it returns "
        "({'revisions': ..., 'approved': ...})"
    )
    assert write in run.step(1)._repr_html_()


def test_a_key_returned_or_a_list_changed_in_place_is_not_called_lost():
    _, kit = kits()
    run = reflection(kit, returned=True).trace(dict(INPUT, notes=[]))
    text = str(run)
    assert "set revisions" not in text and "set notes" not in text
    assert run.values["revisions"] == 3 and run.values["notes"] == ["read"] * 3
    # critique's approved is still lost (the draft that ends the loop is draft 1 only)
    assert "set approved to True" in text


def test_the_debuggers_status_line_says_why_the_loop_did_not_end():
    from graphkit.widgets import DebugSession

    _, kit = kits()
    session = DebugSession(reflection(kit), dict(INPUT, notes=[]), {"recursion_limit": 6})
    session.run()
    assert session.status == "out_of_steps"
    assert session.view().status_text.startswith(
        "out_of_steps at step 7: write and critique set revisions and approved in the state "
        "they were given without returning them, so revisions and approved never changed: "
        "a node changes the state only by what it returns ({'revisions': ..., 'approved': "
        "...}). GraphRecursionError: Recursion limit of 6 reached"
    )


def test_the_debuggers_state_panel_marks_the_lost_key_after_execute():
    from graphkit.widgets import DebugSession

    _, kit = kits()
    session = DebugSession(reflection(kit), dict(INPUT, notes=[]))
    session.step(), session.step()  # the input step, step 0
    session.plan(), session.execute()  # write's step
    panel = session.view().state_html
    assert (
        '<tr class="gk-lost"><td>revisions</td><td>0</td><td>lost: write set it to 1 in its '
        "input, not returned</td></tr>"
    ) in panel
