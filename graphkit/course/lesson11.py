"""Checks for lesson 11, "Streaming, superstep by superstep"
(``notebooks/11-streaming.ipynb``).

Each check streams the learner's answer on the real runtime and, when the chunks are not
the ones asked for, says which chunks came, in which mode, and when.

- ``check_progress(fetch)``: a node that reports progress with the stream writer, so
  that a consumer of the ``custom`` stream prints ``fetched 1 of 3`` ... as it runs.
- ``check_modes(choices)``: the stream mode that answers each of four needs.
- ``check_tokens_of(tokens_of)``: the text one node's model wrote, read from a
  ``messages`` stream that also carries another node's tokens.

The lesson's own views (``by_phase``, ``predict``) are in ``graphkit.course.streamview``.

>>> from graphkit.course.solutions import lesson11 as solutions
>>> bool(check_modes(solutions.MODES))
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypedDict

from graphkit import END, START, StateGraph
from graphkit.course.checking import Wrong, exercise
from graphkit.course.streamview import by_phase, predict
from graphkit.inspect.values import show

__all__ = [
    "NEEDS",
    "by_phase",
    "check_modes",
    "check_progress",
    "check_tokens_of",
    "duo_graph",
    "predict",
    "progress_graph",
]


# -- 11.1 · Report progress -------------------------------------------------------------


class Pages(TypedDict, total=False):
    pages: list[str]
    fetched: int


def progress_graph(fetch: Callable[..., Any]) -> Any:
    """START → fetch → END on ``Pages``, with ``fetch`` the learner's node."""
    builder = StateGraph(Pages)
    builder.add_node("fetch", fetch)
    builder.add_edge(START, "fetch")
    builder.add_edge("fetch", END)
    return builder.compile()


def _progress_story(chunks: list[tuple[str, Any]]) -> str:
    return ", ".join(f"{mode} {show(chunk, 50)}" for mode, chunk in chunks) or "nothing"


@exercise("11.1 · Report progress")
def check_progress(fetch: Callable[..., Any]) -> str:
    """``fetch`` sends ``"fetched i of n"`` to the custom stream for each page, as it
    goes, and returns ``{"fetched": n}``."""
    if not callable(fetch):
        raise Wrong(
            f"Expected a node function, got {type(fetch).__name__}.",
            hint="Pass the function itself: check_progress(fetch).",
        )
    for pages in (["a", "b", "c"], ["x", "y"]):
        app = progress_graph(fetch)
        chunks = list(app.stream({"pages": list(pages)}, stream_mode=["custom", "updates"]))
        custom = [chunk for mode, chunk in chunks if mode == "custom"]
        expected = [f"fetched {i} of {len(pages)}" for i in range(1, len(pages) + 1)]
        updates = [chunk for mode, chunk in chunks if mode == "updates"]
        returned = updates[-1].get("fetch") if updates else None
        if not custom:
            told = (
                f" It returned {show(returned)}: that reaches a consumer in the updates chunk "
                "sent once fetch has finished, not in the custom stream."
                if returned
                else ""
            )
            raise Wrong(
                f"On {len(pages)} pages your node sent no custom chunk.{told}",
                hint="Inside the node, get the writer with get_stream_writer() and call it "
                "once per page: writer(text).",
            )
        if custom != expected:
            counts_right = len(custom) == len(expected) and all(
                isinstance(chunk, str) and chunk.startswith(f"fetched {i} of ")
                for i, chunk in enumerate(custom, 1)
            )
            if counts_right:
                hint = (
                    "The count is right; the total must come from the pages too: "
                    'n = len(pages), then writer(f"fetched {i} of {n}").'
                )
            elif len(custom) == len(expected) and not any(isinstance(c, str) for c in custom):
                # (one chunk per page it sent: each is a dict or a tuple holding the text)
                hint = (
                    "One chunk per page it is; the consumer prints each chunk as it "
                    'comes, so send the text itself: writer(f"fetched {i} of {n}").'
                )
            else:
                hint = 'One chunk per page, counting from 1: writer(f"fetched {i} of {n}").'
            raise Wrong(
                f"On {len(pages)} pages the custom stream sent {show(custom, 120)}; the "
                f"consumer needs {show(expected, 120)}.",
                hint=hint,
            )
        # (giving back the pages it was given, unchanged, is harmless)
        kept = isinstance(returned, dict) and returned.get("pages", pages) == pages
        if not kept or returned.get("fetched") != len(pages):
            # the updates chunk is {'fetch': None} for a return of {} as for one of None
            what = f"returned {show(returned)}" if returned else "wrote nothing"
            raise Wrong(
                f"The progress is right, but fetch {what}: the state "
                f"needs {{'fetched': {len(pages)}}}.",
                hint='Return {"fetched": len(state["pages"])}.',
            )
        order = [mode for mode, _ in chunks]
        if order.index("updates") < len(order) - 1 - order[::-1].index("custom"):
            raise Wrong(
                f"A custom chunk came after fetch's updates chunk: {_progress_story(chunks)}.",
                hint="Send the progress while the node runs, before it returns.",
            )
    return (
        "The custom stream sent one chunk per page (3, then 2) while fetch ran, then "
        "updates sent what it returned: progress reaches the consumer before the step ends."
    )


# -- 11.2 · Which mode answers it? ------------------------------------------------------

NEEDS = {
    "a": "Show the answer's words one by one, as the model writes them",
    "b": "Move a progress bar while a slow node is still running",
    "c": "Log what each node returned, as soon as it returns",
    "d": "Redraw the whole state after every step",
}
"""The four needs of exercise 11.2, by letter."""

_ANSWERS = {"a": "messages", "b": "custom", "c": "updates", "d": "values"}
_SENDS = {
    "values": "the whole state after each step's Update",
    "updates": "{node: what it returned}, one per task, as each finishes",
    "custom": "what a node hands its stream writer, while it runs",
    "messages": "each token a chat model writes inside a node, with the node's name",
    "debug": "events for every task and checkpoint",
    "tasks": "each task as it starts and as it finishes",
    "checkpoints": "each checkpoint as it is saved",
}


# The modes the exercise offers (its cell names these four): a hint lists no other, though
# any mode of _SENDS is judged (choosing "debug" is told what debug sends).
_OFFERED = ", ".join(f'"{mode}"' for mode in ("values", "updates", "custom", "messages"))


@exercise("11.2 · Which mode answers it?")
def check_modes(choices: Mapping[str, Any]) -> str:
    """``choices`` maps each letter of ``NEEDS`` to the stream mode that answers it."""
    if not isinstance(choices, Mapping):
        raise Wrong(
            f"Expected a dict of letter → mode, got {type(choices).__name__}.",
            hint='For example {"a": "values", "b": ..., "c": ..., "d": ...}.',
        )
    for letter, need in NEEDS.items():
        chosen = choices.get(letter)
        if chosen is None or chosen == "":
            raise Wrong(
                f"No mode for {letter} yet: {need!r}.",
                hint=f"Pick one of {_OFFERED} for each letter.",
            )
        if not isinstance(chosen, str):  # (stream_mode takes a list; one need, one mode)
            raise Wrong(
                f"For {letter} you gave {chosen!r}: give one mode, as a string.",
                hint=f"Pick one of {_OFFERED} for each letter.",
            )
        if chosen not in _SENDS:
            raise Wrong(
                f"{chosen!r} (for {letter}) is no stream mode.",
                hint=f"The exercise's modes are {_OFFERED}.",
            )
        if chosen != _ANSWERS[letter]:
            sent = _what_it_sends(chosen)
            raise Wrong(
                f"For {letter} ({need!r}) you chose {chosen!r}, which sends "
                f"{_SENDS[chosen]}. On duo_graph() (drafter → reviewer, each with a "
                f"model) it sent {sent}.",
                hint="Ask what the need must see, and when: a whole state, one node's "
                "return, something a node says while it runs, or a model's tokens.",
            )
    return "Each need has the mode whose chunks carry what it shows, when it must show it."


def _what_it_sends(mode: str) -> str:
    """What ``mode`` sends on the report graph of the lesson, in a few words."""
    app = duo_graph()
    chunks = list(app.stream({"topic": "tides"}, stream_mode=mode))
    if not chunks and mode == "checkpoints":
        return "no chunk at all: duo_graph() has no checkpointer, so it saves no checkpoint"
    if not chunks:
        return "no chunk at all: its nodes send nothing for it"
    if mode in ("debug", "tasks"):  # (a chunk's type and node, not its id or timestamp)
        kinds = [_event(mode, chunk) for chunk in chunks]
        return f"{len(chunks)} chunks: {', '.join(kinds)}"
    first = chunks[0][0].content if mode == "messages" else chunks[0]
    return f"{len(chunks)} chunks, the first {show(first, 70)}"


def _event(mode: str, chunk: Mapping[str, Any]) -> str:
    """A debug or tasks chunk in two words: ``task drafter``, ``task_result drafter``."""
    if mode == "debug":
        return f"{chunk.get('type')} {chunk.get('payload', {}).get('name', '')}".strip()
    return f"{'task_result' if 'result' in chunk else 'task'} {chunk.get('name', '')}".strip()


# -- 11.3 · One node's tokens -----------------------------------------------------------


class Duo(TypedDict, total=False):
    topic: str
    draft: str
    review: str


def _drafter(state: Duo) -> dict:
    from graphkit.prebuilt import ScriptedChatModel

    model = ScriptedChatModel(responses=[f"{state['topic'].capitalize()} follow the moon."])
    return {"draft": model.invoke(f"Write about {state['topic']}").content}


def _reviewer(state: Duo) -> dict:
    from graphkit.prebuilt import ScriptedChatModel

    # (the review names the topic, so that no constant answers for the reviewer)
    model = ScriptedChatModel(responses=[f"Clear, but cite a source on {state['topic']}."])
    return {"review": model.invoke(f"Review: {state['draft']}").content}


def duo_graph() -> Any:
    """START → drafter → reviewer → END; each node asks its own scripted chat model."""
    builder = StateGraph(Duo)
    builder.add_node("drafter", _drafter)
    builder.add_node("reviewer", _reviewer)
    builder.add_edge(START, "drafter")
    builder.add_edge("drafter", "reviewer")
    builder.add_edge("reviewer", END)
    return builder.compile()


def _messages(topic: str) -> list[tuple[Any, dict[str, Any]]]:
    return list(duo_graph().stream({"topic": topic}, stream_mode="messages"))


def _tokens(tokens_of: Callable[[Iterable[Any], str], Any], stream: Any, node: str) -> Any:
    """``tokens_of(stream, node)``; a chunk unpacked into the wrong shape gets a hint."""
    try:
        return tokens_of(stream, node)
    except (AttributeError, TypeError, ValueError) as error:
        if "unpack" not in str(error) and "'tuple' object" not in str(error):
            raise
        raise Wrong(
            f"Your code raised {type(error).__name__}: {error}",
            hint='With stream_mode="messages" alone, each chunk is a pair (message, '
            "metadata): for message, metadata in stream. A (mode, chunk) pair comes only "
            "with a list of modes.",
        ) from error


@exercise("11.3 · One node's tokens")
def check_tokens_of(tokens_of: Callable[[Iterable[Any], str], Any]) -> str:
    """``tokens_of(stream, node)`` returns the text ``node``'s model wrote, from a
    ``messages`` stream of ``duo_graph()``."""
    if not callable(tokens_of):
        raise Wrong(
            f"Expected a function, got {type(tokens_of).__name__}.",
            hint="Pass the function itself: check_tokens_of(tokens_of).",
        )
    for topic in ("tides", "eclipses"):
        chunks = _messages(topic)
        texts = {}
        for node in ("reviewer", "drafter"):
            texts[node] = "".join(m.content for m, meta in chunks if meta["langgraph_node"] == node)
            got = _tokens(tokens_of, iter(chunks), node)
            if got == texts[node]:
                continue
            if not isinstance(got, str):
                raise Wrong(
                    f"tokens_of(stream, {node!r}) returned {type(got).__name__} "
                    f"{show(got, 60)}, not a string.",
                    hint='Join the tokens\' texts: "".join(...).',
                )
            whole = "".join(m.content for m, _ in chunks)
            if got == whole:
                raise Wrong(
                    f"tokens_of(stream, {node!r}) returned {got!r}: every token of the "
                    "stream, drafter's and reviewer's.",
                    hint="Each chunk is (message, metadata); keep those whose metadata "
                    "names the node.",
                )
            if got.split() == texts[node].split():  # (the right chunks, joined with spaces)
                raise Wrong(
                    f"tokens_of(stream, {node!r}) returned {got!r}; {node}'s model wrote "
                    f"{texts[node]!r}: the right tokens, with spaces added between them.",
                    hint="The spaces are tokens of their own ('Clear,', ' ', 'but'): join "
                    'the texts with nothing between them, "".join(...).',
                )
            raise Wrong(
                f"tokens_of(stream, {node!r}) returned {got!r}; {node}'s model wrote "
                f"{texts[node]!r} (topic {topic!r}), in {len(chunks)} chunks of which "
                f"{sum(meta['langgraph_node'] == node for _, meta in chunks)} are its own.",
                hint="metadata['langgraph_node'] names the node whose model sent the token: "
                "keep the asked node's chunks and put their text together, in order.",
            )
    return (
        f"From {len(chunks)} chunks you kept each node's own, by "
        "metadata['langgraph_node']: a UI can show one node's answer as it is written."
    )
