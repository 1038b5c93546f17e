"""Checks for lesson 27 · Streaming into an app: parts, namespaces and interrupts.

Each check streams (or invokes) a graph of its own with ``version="v2"`` and hands the
learner's consumer what an app would get; a verdict compares what the consumer made of
it with what the parts said, and names the part it misread.

- ``check_consume(consume)``: progress lines (every ``custom`` part, from any graph) and
  the final answer (the state of the last ``values`` part) from one stream.
- ``check_text_of(text_of)``: the text one node's model wrote, told apart by node name
  *and* namespace, in a graph whose subgraph has a node of the same name.
- ``check_answer_all(answer_all)``: a loop that invokes, answers every interrupt in
  ``GraphOutput.interrupts`` with ``Command(resume=...)`` and returns the final value.

The graphs they stream are built in ``lesson27_graphs``, and the stream a consumer is
handed in ``lesson27_parts``; their names are importable from here as well.

>>> from graphkit.course.solutions import lesson27 as solutions
>>> bool(check_consume(solutions.consume)), bool(check_text_of(solutions.text_of))
(True, True)
>>> bool(check_answer_all(solutions.answer_all))
True
"""

from __future__ import annotations

import functools
import uuid
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from graphkit.course.checking import Wrong, exercise
from graphkit.course.lesson27_graphs import (
    DESKS,
    MODES,
    Desk,
    _stream,
    desk_graph,
    review_graph,
    talk_graph,
)

# (the notebook and the tests read these through lesson27, as before they moved)
from graphkit.course.lesson27_graphs import Review as Review
from graphkit.course.lesson27_graphs import Talk as Talk
from graphkit.course.lesson27_graphs import _said as _said
from graphkit.course.lesson27_parts import (
    LIST_FIRST,
    NOT_A_LIST,
    ONE_PASS,
    READ_TWICE,
    _indexed_a_stream,
    _NotInAPart,
    _read_by_attribute,
    _Stream,
    _texts,
    _tokens,
    _unpacked_a_part,
    _where,
)
from graphkit.errors import GraphkitWarning, InvalidUpdateError
from graphkit.inspect.values import show, show_error

__all__ = [
    "MODES",
    "Desk",
    "check_answer_all",
    "check_consume",
    "check_text_of",
    "desk_graph",
    "review_graph",
    "talk_graph",
]


# -- 27.1 · progress and the final answer ----------------------------------------------------------


def _once(answer: Callable[..., Any], stream: _Stream, *args: Any) -> Any:
    """``answer(stream, *args)``; an error raised after a second pass over the stream is
    told as that (the second pass found no part), not as the error alone."""
    try:
        return answer(stream, *args)
    except Exception:
        if stream.read_again:
            raise Wrong(READ_TWICE, ONE_PASS) from None
        raise


@exercise("27.1 · Progress and the final answer")
def check_consume(consume: Callable[[Iterable[dict]], Any]) -> str:
    """``consume(parts)``: from the parts of ``desk_graph().stream(..., stream_mode=MODES,
    subgraphs=True, version="v2")``, the progress lines (the data of every ``custom``
    part, in order) and the final answer (``answer`` in the last ``values`` part's
    state), as a pair."""
    app = desk_graph()
    for state in DESKS:
        parts = _stream(app, state)
        stream = _Stream(parts)
        try:
            got = _once(consume, stream)
        except ValueError as error:
            if not _unpacked_a_part(error):
                raise
            raise Wrong(
                f"Your code unpacked a part as a tuple and raised ValueError: {error}.",
                _ONE_DICT,
            ) from None
        except TypeError as error:
            if not _indexed_a_stream(error):
                raise
            raise Wrong(f"Your code raised TypeError: {error}: {NOT_A_LIST}.", LIST_FIRST) from None
        except AttributeError as error:
            if (said := _read_by_attribute(error)) is None:
                raise
            raise Wrong(said, _ONE_DICT) from None
        except KeyError as error:
            if isinstance(error, _NotInAPart):
                key = error.args[0]
                state = (
                    " (the state is a values part's data)" if key in Desk.__annotations__ else ""
                )
                raise Wrong(
                    f"Your code raised KeyError: {key!r}: a part of a v2 stream has the keys "
                    f"'type', 'ns' and 'data', and no {key!r}{state}.",
                    _ONE_DICT,
                ) from None
            if error.args != ("answer",):
                raise
            raise Wrong(
                "Your code raised KeyError: 'answer': the values parts before write's step "
                "hold no 'answer' (the first is the input, step 0's).",
                _ANSWER_HINT,
            ) from None
        progress = [p["data"] for p in parts if p["type"] == "custom"]
        top = [p for p in parts if p["type"] == "values" and not p["ns"]]
        answer = top[-1]["data"]["answer"]
        if not isinstance(got, tuple | list) or len(got) != 2:
            raise Wrong(
                f"consume returned {show(got, 80)}, not a pair (progress lines, answer).",
                "Return both: return progress, answer.",
            )
        given, final = got
        if final == progress or (isinstance(final, tuple) and list(final) == progress):
            raise Wrong(
                f"consume returned {show(got, 90)}: your pair is (answer, progress lines).",
                "The progress lines come first: return progress, answer.",
            )
        if isinstance(given, str) or not isinstance(given, Iterable):
            one = "one string, " if isinstance(given, str) else ""
            raise Wrong(
                f"Your progress lines were {one}{show(given, 70)}; the custom parts "
                f"said {show(progress, 120)}.",
                "Return the progress lines as a list, one item per custom part's data.",
            )
        lines = list(given)  # (once: a generator is read once)
        if (lines, final) != (progress, answer) and stream.read_again:
            raise Wrong(READ_TWICE, ONE_PASS)
        if lines != progress:
            raise Wrong(_progress_wrong(given, lines, progress, parts), _PROGRESS_HINT)
        if final != answer:
            raise Wrong(_answer_wrong(final, answer, parts), _ANSWER_HINT)
    return (
        f"{len(progress)} progress lines from two graphs (the subgraph's among them), and "
        f"the answer from the last values part, {answer!r}: the state, not the tokens."
    )


_ONE_DICT = (
    "With version='v2' each part is one dict, {'type': ..., 'ns': ..., 'data': ...}, "
    "whatever the modes: read its keys."
)
_PROGRESS_HINT = (
    "A progress line is a custom part's data, whichever graph sent it: keep every part "
    "whose type is 'custom', in the order they came."
)
_ANSWER_HINT = (
    "The values parts are the state after each step; the answer is in the last one, "
    "once every step has run."
)


def _progress_wrong(given: Any, lines: list, progress: list, parts: list[dict]) -> str:
    top = [p["data"] for p in parts if p["type"] == "custom" and not p["ns"]]
    said = (
        f"Your progress lines were {show(lines, 90)}; the custom parts said {show(progress, 120)}"
    )
    if lines == [p for p in parts if p["type"] == "custom"]:
        return f"{said}: yours are the custom parts themselves; a progress line is a part's data."
    if sorted(lines, key=repr) == sorted(progress, key=repr):
        kept = (
            f"a {type(given).__name__} keeps no order" if isinstance(given, set | frozenset) else ""
        )
        return f"{said}: the same lines, in another order{f' ({kept})' if kept else ''}."
    if lines == top:
        sub = next(p["ns"] for p in parts if p["type"] == "custom" and p["ns"])
        return f"{said}. You kept only those of ns (): the others came from ns {_where(sub)}."
    if len(lines) > len(progress):
        kinds = sorted({p["type"] for p in parts if p["data"] in lines})
        others = [k for k in kinds if k != "custom"]
        extra = f" (data of {', '.join(others)} parts too)" if others else ""
        return f"{said}: yours has {len(lines)} lines, {len(progress)} were sent{extra}."
    return f"{said}."


def _answer_wrong(final: Any, answer: str, parts: list[dict]) -> str:
    top = [p["data"] for p in parts if p["type"] == "values" and not p["ns"]]
    said = f"Your answer was {show(final, 90)}; the last values part's is {answer!r}"
    if final is None:
        return (
            f"{said}. No values part before write's step holds an answer: the first is "
            "the input (step 0's), before any node ran."
        )
    if final == top[0]:
        return f"{said}: yours is the first values part's state, the input (step 0's)."
    if isinstance(final, list | tuple) and list(final) == [answer]:
        return (
            f"{said}: yours is a {type(final).__name__} holding it; the answer is the string alone."
        )
    held = [state.get("answer") for state in top]
    if isinstance(final, list | tuple) and answer in final and all(a in held for a in final):
        return (
            f"{said}: yours is a {type(final).__name__} of the answers the values parts held, "
            "one per step that had one; the final answer is the last one's alone."
        )
    if isinstance(final, dict) and final.get("answer") == answer:
        return f"{said}: you returned the whole state, not its answer."
    earlier = [state for state in top[:-1] if state.get("answer") == final]
    spoken = [p["data"][0].content for p in parts if p["type"] == "messages"]
    if earlier:
        return (
            f"{said}. Yours is write's answer, before cite's step added the sources: "
            "write's tokens spell it, and so does the values part after write's step; "
            "the last values part holds the final state."
        )
    if final in ("".join(spoken), spoken[-1]):
        which = "every token" if len(final) > len(spoken[-1]) else "the last token"
        return (
            f"{said}: yours is {which} the models sent; the answer is what the nodes "
            "left in the state."
        )
    return f"{said}."


# -- 27.2 · one node's tokens ----------------------------------------------------------------------


def _in(node: str, subgraph: str | None) -> str:
    return f"the top graph's {node}" if subgraph is None else f"{subgraph}'s {node}"


ASKED = [("model", None), ("model", "research"), ("critic", None), ("search", "research")]
"""The (node, subgraph) pairs ``check_text_of`` asks about."""


@exercise("27.2 · One node's tokens, in one graph")
def check_text_of(text_of: Callable[..., Any]) -> str:
    """``text_of(parts, node, subgraph=None)``: the text ``node``'s model wrote, read from
    the ``messages`` parts of a v2 stream with ``subgraphs=True``; ``node`` of the top
    graph when ``subgraph`` is None, else of the subgraph run by the top graph's node
    named ``subgraph``."""
    app = talk_graph()
    for topic in ("tides", "comets"):
        parts = _stream(app, {"topic": topic})
        texts = _texts(parts)
        for node, subgraph in ASKED:
            want = texts.get((subgraph, node), "")
            stream = _Stream(parts)
            try:
                got = _once(text_of, stream, node, subgraph)
            except AttributeError as error:
                if (said := _read_by_attribute(error)) is None:
                    raise
                raise Wrong(said, _ONE_DICT) from None
            except (KeyError, TypeError, IndexError, ValueError) as error:
                raise Wrong(*_raised(error, node, subgraph)) from None
            if got == want:
                continue
            if stream.read_again:
                raise Wrong(READ_TWICE, ONE_PASS)
            if (got is None or got == "") and not stream.read_a_part:
                raise Wrong(
                    f"text_of(parts, {node!r}, {subgraph!r}) returned {got!r} and read no "
                    f"part (its 'type', 'ns' or 'data'); {_in(node, subgraph)} wrote {want!r}.",
                    _FIRST_STEP,
                )
            joined = isinstance(got, str) and _separator(got, _tokens(parts, node, subgraph))
            hint = _ONE_STRING if joined or not isinstance(got, str) else _TEXT_HINT
            raise Wrong(_text_wrong(got, want, texts, node, subgraph, parts), hint)
    return (
        "You told the two models named 'model' apart by the part's ns, () or "
        "('research:…',), and kept each node's tokens by metadata['langgraph_node']."
    )


_ONE_STRING = (
    "Return one string: each messages part carries one token, and the spaces come as "
    "tokens too; add their text up in order, text += token.content."
)
_FIRST_STEP = (
    "First keep the messages parts: part['type'] == 'messages'. Each one's data is "
    "(token, metadata), one token; then read metadata['langgraph_node'] and the part's ns."
)
_TEXT_HINT = (
    "A messages part's data is (token, metadata): metadata['langgraph_node'] names the "
    "node, and the part's ns names the graph it ran in: () for the top graph, "
    "('research:<task id>',) inside research's subgraph."
)


def _raised(error: Exception, node: str, subgraph: str | None) -> tuple[str, str]:
    """What the error says of the parts, where its kind and message tell; else the
    error alone: a verdict names no cause it cannot see."""
    call = f"text_of(parts, {node!r}, {subgraph!r})"
    said = f"{call} raised {type(error).__name__}: {error}."
    text = str(error)
    key = error.args[0] if isinstance(error, KeyError) and error.args else None
    if _indexed_a_stream(error):
        return f"{call} raised TypeError: {error}: {NOT_A_LIST}.", LIST_FIRST
    if key == "langgraph_node":
        return (
            f"{said} Only a messages part names a node: its data is (token, metadata), "
            "and the other parts' data (custom, values) has no such key."
        ), _TEXT_HINT
    if isinstance(key, int) or (isinstance(error, ValueError) and "unpack" in text):
        return (
            f"{said} Only a messages part's data is a pair, (token, metadata): a values "
            "part's data is the state, a dict."
        ), _TEXT_HINT
    if isinstance(key, str) and key not in ("type", "ns", "data"):
        return f"{said} A messages part's metadata names its node under 'langgraph_node'.", (
            _TEXT_HINT
        )
    if isinstance(error, TypeError) and "tuple indices must be integers" in text:
        return f"{said} A messages part's data is a pair, (token, metadata), not a dict.", (
            _TEXT_HINT
        )
    if isinstance(error, TypeError) and "Chunk" in text:
        return (
            f"{said} A messages part's data starts with its token, a message chunk: its "
            "text is token.content."
        ), _TEXT_HINT
    if isinstance(error, IndexError) and "tuple index out of range" in text:
        return (
            f"{said} Only a subgraph's parts have an entry in their ns: a part of the top "
            "graph has ns (), with no entry to index."
        ), _TEXT_HINT
    return said, (
        "Run your text_of on the lesson's talk_parts in a cell, with subgraph=None too, "
        "and read where it fails."
    )


def _text_wrong(
    got: Any,
    want: str,
    texts: dict[tuple[str | None, str], str],
    node: str,
    subgraph: str | None,
    parts: list[dict],
) -> str:
    call = f"text_of(parts, {node!r}, {subgraph!r})"
    tokens = _tokens(parts, node, subgraph)
    if not isinstance(got, str):
        said = f"{call} returned {type(got).__name__} {show(got, 60)}, not a string"
        if tokens and isinstance(got, list | tuple) and list(got) == tokens:
            return (
                f"{said}: yours is the list of its {len(tokens)} tokens; the text is them joined."
            )
        if getattr(got, "content", None) == want:
            added = "its tokens added up, a message chunk" if "Chunk" in type(got).__name__ else ""
            return f"{said}: yours is {added or 'a message'}; the text is its .content."
        return f"{said}."
    said = f"{call} returned {got!r}; {_in(node, subgraph)} wrote {want!r}"
    separator = _separator(got, tokens)
    if separator is not None:
        return f"{said}. Yours joins its tokens with {separator!r}: the spaces are tokens too."
    by_name = "".join(
        p["data"][0].content
        for p in parts
        if p["type"] == "messages" and p["data"][1]["langgraph_node"] == node
    )
    if got == by_name and got != want:
        others = [k for k in texts if k[1] == node and k != (subgraph, node)]
        return (
            f"{said}. Yours holds the tokens of every node named {node!r}, "
            f"{' and '.join(_in(n, s) for s, n in [(subgraph, node), *others])}: "
            "the node's name alone does not say which graph it ran in."
        )
    graph = [] if subgraph is None else [subgraph]
    in_graph = [
        p for p in parts if p["type"] == "messages" and [e.split(":")[0] for e in p["ns"]] == graph
    ]
    spoke = sorted({p["data"][1]["langgraph_node"] for p in in_graph})
    if len(spoke) > 1 and got == "".join(p["data"][0].content for p in in_graph):
        return (
            f"{said}. Yours holds every token sent in that graph, by "
            f"{' and '.join(spoke)}: the ns says which graph, not which node."
        )
    other = next((key for key, text in texts.items() if text == got and got), None)
    if other is not None:
        return f"{said}. Yours is {_in(other[1], other[0])}'s text."
    if got == "" and subgraph is not None:
        ns = next(p["ns"] for p in parts if p["type"] == "messages" and p["ns"])
        return (
            f"{said}. Yours found none of its tokens: their parts' ns is {_where(ns)}, "
            f"whose entry is '{subgraph}:' and a task id, not {subgraph!r} alone."
        )
    if got == "":
        return f"{said}. Yours found none of its tokens: their parts' ns is ()."
    if len(tokens) > 1 and got == tokens[-1]:
        return (
            f"{said}. Yours is the last token it sent: each messages part carries one "
            "token, and the text is all of them, in order."
        )
    return f"{said}."


def _separator(got: str, tokens: list[str]) -> str | None:
    """What ``got`` put between ``tokens`` when it is them joined with something, else None
    (a separator may start as a token does: ' ' between 'A', ' ', 'draft')."""
    if not isinstance(got, str) or len(tokens) < 2:
        return None
    size, left = divmod(len(got) - sum(map(len, tokens)), len(tokens) - 1)
    if size < 1 or left:
        return None
    separator = got[len(tokens[0]) : len(tokens[0]) + size]
    return separator if got == separator.join(tokens) else None


# -- 27.3 · answer every interrupt -----------------------------------------------------------------


_STARTS = 20
"""Runs of ``write`` past which a loop is taken to start over from its input for ever
(no right answer runs it twice): told so at once, not after the check's time limit."""


class _Counted:
    """How often each node of ``review_graph`` ran."""

    def __init__(self) -> None:
        self.runs: dict[str, int] = {}

    def __call__(self, node: str) -> None:
        self.runs[node] = self.runs.get(node, 0) + 1
        if node == "write" and self.runs[node] > _STARTS:
            raise Wrong(
                f"write ran {self.runs[node]} times: after each pause your code started "
                "the run again from its input, so the run never got past its first pause.",
                "A paused run goes on when it is resumed on the same thread, with "
                "Command(resume=decide(value)) as the input; a dict input starts it over.",
            )


ASKS = 6
"""How often ``check_answer_all``'s ``decide`` answers before it stops a loop that asks
again and again (the graphs pause at most twice)."""


def _decide(
    asked: list[Any], asked_with: list[dict], run_now: Callable[[], str], app_state: Callable
) -> Callable:
    """The check's ``decide``: it records what it was given, and answers by the value's
    ``asks``. Given anything but a value a node passed to ``interrupt()`` (``asked_with``),
    or asked too often, it stops the learner's loop; ``run_now()`` says where the run is,
    ``app_state()`` is the thread's state."""
    from graphkit.types import Interrupt

    def decide(value: Any) -> Any:
        asked.append(value)
        wants = "decide wants what the node passed to interrupt(): an Interrupt's .value."
        if isinstance(value, Interrupt):
            raise Wrong(
                "Your code handed decide the Interrupt itself, not the value the node "
                f"asked with, {show(value.value, 70)}.",
                wants,
            )
        if value not in asked_with:
            waiting = [pause.value for pause in app_state().interrupts]
            raise Wrong(
                f"Your code handed decide {show(value, 70)}, not the value the node asked "
                f"with, {show(waiting[0] if waiting else asked_with[0], 70)}.",
                wants,
            )
        if len(asked) > ASKS:
            where = run_now()
            if where == "ended":
                said = "after the run had ended: your loop kept reading an old output."
            elif where == "started over":
                said = (
                    "each time from the start (write ran again): a dict given to invoke is "
                    "an input, which starts the run over; a resume is Command(resume=...)."
                )
            elif where == "at its first pause":
                said = "again and again: the run never went on."
            elif where.startswith("review ran"):
                said = (
                    f"again and again: {where} and asked each time, run again with no answer "
                    "to resume it (an input of None runs the paused node again); a resume is "
                    "Command(resume=...)."
                )
            else:
                said = f"again, while the run had gone on, {where}: your loop kept an old output."
            raise Wrong(
                f"Your code called decide {len(asked)} times on a run that pauses at most "
                f"twice, with {show(value, 60)} {said}",
                "Resume the run with what decide returned, on the same thread, and read "
                "the interrupts of the output that resume returns.",
            )
        return {"approve?": "yes", "readers?": 3}[value["asks"]]

    return decide


@exercise("27.3 · Answer every interrupt")
def check_answer_all(answer_all: Callable[..., Any]) -> str:
    """``answer_all(app, input, config, decide)``: run ``app`` on ``input`` with
    ``invoke(..., version="v2")``; while the run pauses, resume it on the same thread with
    ``Command(resume=decide(value))`` for the interrupt's value; return the final value."""
    ran: dict[str, None] = {}  # how the learner's code ran the graph, in the order first used
    for reviews in (2, 0, 1):
        counted = _Counted()
        app = review_graph(reviews, counted)
        config = {"configurable": {"thread_id": f"check-{uuid.uuid4().hex}"}}
        asked: list[Any] = []
        question = {"question": "tides"}
        asked_with = [
            {"asks": asks, "answer": "tides: twice a day"} for asks in ("approve?", "readers?")
        ]

        def run_now(app: Any = app, config: dict = config, counted: _Counted = counted) -> str:
            paused = app.get_state(config).next
            if not paused:
                return "ended"
            if paused == ("review",) and counted.runs.get("review") == 1:
                return "at its first pause"
            if counted.runs.get("write", 0) > 1:
                return "started over"
            if paused == ("review",):
                return f"review ran {counted.runs['review']} times"
            return f"to a pause at {', '.join(paused)}"

        decide = _decide(asked, asked_with, run_now, functools.partial(app.get_state, config))
        states: list[dict] = []  # what invoke returned without version='v2'
        app.invoke = _keeping_states(_noting(app.invoke, ran), states)
        app.stream = _noting(app.stream, ran)
        case = f"With {reviews} interrupts" if reviews != 1 else "With 1 interrupt"
        try:
            # (a resume of a finished run warns, once per line: the verdict says it better)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", GraphkitWarning)
                got = answer_all(app, dict(question), config, decide)
        except Exception as error:
            if _read_a_state_as_output(error, states):
                raise Wrong(
                    f"{case}, your code raised {show_error(error)}: invoke without "
                    "version='v2' returns the state, a dict; .value and .interrupts are a "
                    "GraphOutput's, which invoke(..., version='v2') returns.",
                    "Run and resume with invoke(..., version='v2').",
                ) from None
            if asked and _answer_as_input(error):
                raise Wrong(
                    f"{case}, decide answered, then your code gave its answer to the graph as "
                    f"the run's input, and the run refused it (InvalidUpdateError: "
                    f"{str(error).split(':')[0]}): an input is a dict of state keys.",
                    "Resume with the answer wrapped, Command(resume=answer), on the same thread.",
                ) from None
            if isinstance(error, Wrong) or not asked or run_now() != "at its first pause":
                raise
            raise Wrong(
                f"{case}, decide answered, then your code raised {show_error(error)}; the run "
                "on the thread of config is still paused at review: it was never resumed there.",
                _SAME_THREAD,
            ) from None
        state = app.get_state(config)
        want = dict(question, **_final(reviews))
        if got == want:
            continue
        if not state.values:
            raise Wrong(
                f"{case}, your function returned {show(got, 60)} and never ran the graph "
                "on that thread.",
                "Run app with the input and the config given, then look at what came back.",
            )
        if counted.runs.get("write", 0) > 1:
            raise Wrong(
                f"{case}, write ran {counted.runs['write']} times: after a pause your code "
                "started the run again from its input, and never got past the first pause.",
                "A paused run goes on when it is resumed on the same thread with the "
                "answer: the input would start it over.",
            )
        if state.next:
            answered = len(asked)
            paused = ", ".join(state.next)
            return_said = "a GraphOutput" if _is_output(got) else show(got, 70)
            if answered == 0:
                raise Wrong(
                    f"{case}, your function returned {return_said} while the run was paused "
                    f"at {paused}: decide was never called.",
                    "invoke(..., version='v2') returns a GraphOutput: the state is its "
                    ".value, and a paused run's interrupts are beside it, not in the state.",
                )
            if run_now() == "at its first pause":
                raise Wrong(
                    f"{case}, your code called decide and returned {return_said}, but never "
                    f"resumed the run on this thread: it is still paused at {paused}.",
                    "Resume with what decide returned, Command(resume=...), on the same thread.",
                )
            raise Wrong(
                f"{case}, your code answered {answered} interrupt"
                f"{'s' if answered > 1 else ''} and returned {return_said} while "
                f"the run was paused again, at {paused}: a resumed run can pause again.",
                "Keep resuming while the last output has interrupts.",
            )
        if reviews and not asked:
            raise Wrong(
                f"{case}, decide was never called, and the run ended with "
                f"{show(state.values, 90)}: your code resumed it with something other than "
                "decide's answers.",
                "Call decide with each interrupt's value, and resume with what it returns.",
            )
        if _is_output(got) and got.value == want:
            raise Wrong(
                f"{case}, your function returned the GraphOutput itself, {show(got, 90)}.",
                "The final value is the GraphOutput's .value.",
            )
        raise Wrong(
            f"{case}, your function returned {show(got, 90)}; the run ended with "
            f"{show(state.values, 90)}.",
            "Return the final value: the last GraphOutput's .value.",
        )
    return (
        "Your loop answered every interrupt with decide's answer, on the same thread, and "
        "returned the last value: with two pauses, one, and none. It ran and resumed the "
        f"graph with {' and '.join(ran)}."
    )


def _answer_as_input(error: Exception) -> bool:
    """Whether ``error`` is the runtime's refusal of an input that is no dict (a resume
    answer given bare, where ``Command(resume=...)`` belongs)."""
    return isinstance(error, InvalidUpdateError) and str(error).startswith("Expected dict, got")


_SAME_THREAD = (
    "Resume on the thread the run paused on: pass config again, with "
    "Command(resume=...) as the input."
)


def _final(reviews: int) -> dict:
    status = ["written", "reviewed: yes", "sent to 3"][: reviews + 1]
    return {"answer": "tides: twice a day", "status": ", ".join(status)}


def _noting(run: Callable[..., Any], ran: dict[str, None]) -> Callable[..., Any]:
    """``run`` (an app's invoke or stream), noting in ``ran`` how it was called: what a
    pass says of the answer, it has seen (not where the answer read the interrupts)."""

    @functools.wraps(run)
    def run_and_note(*args: Any, **kwargs: Any) -> Any:
        version = kwargs.get("version")
        how = f"{run.__name__}(..., version={version!r})" if version else f"{run.__name__}(...)"
        ran[how if version == "v2" else f"{how}, without version='v2'"] = None
        return run(*args, **kwargs)

    return run_and_note


def _keeping_states(invoke: Callable[..., Any], states: list[dict]) -> Callable[..., Any]:
    """``invoke``, keeping in ``states`` each state it returns (run without version='v2')."""

    @functools.wraps(invoke)
    def invoke_and_keep(*args: Any, **kwargs: Any) -> Any:
        output = invoke(*args, **kwargs)
        if isinstance(output, dict):
            states.append(output)
        return output

    return invoke_and_keep


def _read_a_state_as_output(error: Exception, states: list[dict]) -> bool:
    """Whether ``error`` came of reading one of ``states``, a v1 invoke's output, as a
    GraphOutput (a state read from a GraphOutput or from get_state is a dict too)."""
    return (
        isinstance(error, AttributeError)
        and error.name in ("value", "interrupts")
        and any(error.obj is state for state in states)
    )


def _is_output(value: Any) -> bool:
    return type(value).__name__ == "GraphOutput"
