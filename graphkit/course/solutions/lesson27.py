"""Solutions to lesson 27 · Streaming into an app: parts, namespaces and interrupts.

>>> from graphkit.course import lesson27
>>> bool(lesson27.check_consume(consume)), bool(lesson27.check_text_of(text_of))
(True, True)
>>> bool(lesson27.check_answer_all(answer_all))
True
"""

from __future__ import annotations

from graphkit import Command

__all__ = ["answer_all", "consume", "text_of"]


def consume(parts):
    """27.1: one loop, one branch per part type; the answer is read from the last values
    part (the state after the last step), not the first (the input)."""
    progress, state = [], {}
    for part in parts:
        match part["type"]:
            case "custom":
                progress.append(part["data"])  # from any graph: the subgraph's too
            case "values" if not part["ns"]:
                state = part["data"]
    return progress, state.get("answer")


def text_of(parts, node, subgraph=None):
    """27.2: the node's name says which node, the part's ns which graph: () for the top
    graph, ('research:<task id>',) for a node of research's subgraph."""
    text = ""
    for part in parts:
        if part["type"] != "messages":
            continue
        token, metadata = part["data"]
        graphs = [entry.split(":")[0] for entry in part["ns"]]  # ('research:<id>',): ['research']
        if metadata["langgraph_node"] == node and graphs == ([subgraph] if subgraph else []):
            text += token.content
    return text


def answer_all(app, input, config, decide):
    """27.3: invoke, then resume on the same thread while the output has interrupts."""
    output = app.invoke(input, config, version="v2")
    while output.interrupts:
        answer = decide(output.interrupts[0].value)
        output = app.invoke(Command(resume=answer), config, version="v2")
    return output.value
