"""Tests of lesson 19's checks, and of its claims: each check passes on its solution and
fails, saying why, on the notebook's stub and on typical wrong answers; the lesson's
graphs run on LangGraph too, with the same versions and versions seen in every saved
checkpoint (their integer parts: LangGraph's InMemorySaver adds a random fraction)."""

from __future__ import annotations

import json
import operator
import os
import types
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from graphkit.course import assert_fails, assert_passes, lesson19
from graphkit.course.solutions import lesson19 as solutions
from tests.course.cells import run_cells, stub_names

LESSON = Path(__file__).parents[2] / "notebooks" / "19-channel-versions.ipynb"


def stub_cells() -> dict:
    return stub_names(LESSON, lesson19, ("def nodes_to_run(", "def feed(", "def woke("))


def code_cells() -> list[tuple[str, str]]:
    from tests.course.cells import code_cells as cells

    return cells(LESSON)


def test_the_notebooks_stubs_fail_their_checks():
    stubs = stub_cells()
    assert_fails(lesson19.check_plan_rule(stubs["nodes_to_run"]), "would not run __start__")
    assert_fails(
        lesson19.check_alert_on_change(stubs["feed"]),
        "alert ran at step 2, woken by price holding 100.0, though quote 1 (100.0) repeats",
        hint="every write moves the version",
    )
    assert_fails(lesson19.check_woke(stubs["woke"]), "returned None", hint="before the step")


def test_the_lessons_cells_show_the_same_when_run_again():
    """The lesson's cells that run a graph, and 19.2's stub cell (which runs its program),
    show the same when run again, in any order."""
    cells = [cell for cell, source in code_cells() if "trace(" in source or "invoke(" in source]
    run_cells(LESSON, again=tuple(reversed(cells)), names={"display": print})


# -- 19.1 · Write the Plan rule


def test_plan_rule_passes_on_the_solution():
    verdict = assert_passes(lesson19.check_plan_rule(solutions.nodes_to_run))
    assert "all 25 steps" in verdict.message


def ready_only(versions, seen, triggers, ready):
    return {node for node, channels in triggers.items() if any(c in ready for c in channels)}


def newer_only(versions, seen, triggers, ready):
    return {
        node
        for node, channels in triggers.items()
        if any(versions.get(c, 0) > seen.get(node, {}).get(c, 0) for c in channels)
    }


def all_triggers(versions, seen, triggers, ready):
    return {
        node
        for node, channels in triggers.items()
        if all(c in ready and versions.get(c, 0) > seen.get(node, {}).get(c, 0) for c in channels)
    }


@pytest.mark.parametrize(
    ("rule", "said", "hint"),
    [
        (ready_only, "you would run tick, which the runtime did not run", "already seen"),
        (newer_only, "you would run __start__", "empties a channel"),
        (all_triggers, "you would not run c", "One trigger"),
        (lambda *args: None, "not a set of node names", "empty set"),
    ],
)
def test_plan_rule_wrong_answers(rule, said, hint):
    assert_fails(lesson19.check_plan_rule(rule), said, hint=hint)


def test_plan_rule_is_told_that_a_dict_is_not_a_set():
    """A dict of node → bool: the set of its keys is every node, and the verdict said
    'you would run draft', which the learner's dict had marked False."""
    verdict = assert_fails(
        lesson19.check_plan_rule(
            lambda versions, seen, triggers, ready: {
                node: solutions.nodes_to_run(versions, seen, {node: chans}, ready) != set()
                for node, chans in triggers.items()
            }
        ),
        "returned a dict",
        hint="set of the nodes",
    )
    assert "you would run" not in verdict.message


def test_plan_rule_reading_seen_or_versions_without_a_default_is_told_what_is_missing():
    def seen_of_every_node(versions, seen, triggers, ready):
        return {
            node
            for node, channels in triggers.items()
            if any(c in ready and versions[c] > seen[node].get(c, 0) for c in channels)
        }

    def version_of_every_trigger(versions, seen, triggers, ready):
        return {
            node
            for node, channels in triggers.items()
            if any(versions[c] > seen.get(node, {}).get(c, 0) and c in ready for c in channels)
        }

    verdict = assert_fails(
        lesson19.check_plan_rule(seen_of_every_node),
        "KeyError: '__start__': seen has no entry for __start__",
        hint="has seen no version",
    )
    assert "Run your answer on its own" not in verdict.hint
    assert_fails(
        lesson19.check_plan_rule(version_of_every_trigger),
        "versions has no entry for branch:to:draft",
        hint="no version",
    )
    # (all_triggers's verdict names a trigger with no version so, not "at version none yet")
    verdict = lesson19.check_plan_rule(all_triggers)
    assert_fails(verdict, "branch:to:c has no version yet, c saw none")


def test_plan_inputs_read_a_checkpoint():
    app = lesson19._state_graph([("__start__", "draft"), ("draft", "review")])
    run = app.trace({})
    versions, seen, triggers, ready = lesson19.plan_inputs(app, run.step(2).checkpoint_before)
    assert (versions["branch:to:review"], seen["draft"], triggers["review"]) == (
        3,
        {"branch:to:draft": 2},
        ("branch:to:review",),
    )
    assert "branch:to:review" in ready and "branch:to:draft" not in ready
    assert solutions.nodes_to_run(versions, seen, triggers, ready) == {"review"}


# -- 19.2 · Wake alert only when the price changes


def test_alert_on_change_passes_on_the_solution():
    verdict = assert_passes(lesson19.check_alert_on_change(solutions.feed))
    assert "alert ran 13 times for the 21 quotes" in verdict.message


def taking(price: Any) -> Any:
    """A ``feed`` that takes every quote and writes ``price(quote, x)`` when it is not
    ``...`` (``...``: no write)."""

    def feed(x: dict) -> dict:
        quote, *rest = x["quotes"]
        writes = {"quotes": rest} if rest else {}
        if (written := price(quote, x)) is not ...:
            writes["price"] = written
        return writes

    return feed


def stops_at_a_repeat(x: dict) -> dict:
    """Returns {} at a repeat: no quotes written either, so feed is not woken again."""
    quote, *rest = x["quotes"]
    if quote == x.get("price"):
        return {}
    return {"quotes": rest, "price": quote} if rest else {"price": quote}


def remembering() -> Any:
    """Compares with a price of its own, kept between runs."""
    last: list = []

    def feed(x: dict) -> dict:
        quote, *rest = x["quotes"]
        writes = {"quotes": rest} if rest else {}
        if not last or quote != last[-1]:
            writes["price"] = quote
        last.append(quote)
        return writes

    return feed


def first_only() -> Any:
    """Compares each quote with the first of the run only."""
    first: list = []

    def feed(x: dict) -> dict:
        quote, *rest = x["quotes"]
        if "price" not in x:
            first[:] = [quote]
        writes = {"quotes": rest} if rest else {}
        if "price" not in x or quote != first[0]:
            writes["price"] = quote
        return writes

    return feed


def forgets_the_last(x: dict) -> dict:
    """Writes price only while quotes are left: the last quote never alerts."""
    quote, *rest = x["quotes"]
    if not rest:
        return {}
    return {"quotes": rest, **({"price": quote} if quote != x.get("price") else {})}


def expects_a_price(x: dict) -> dict:
    quote, *rest = x["quotes"]
    return {"quotes": rest, **({"price": quote} if quote != x["price"] else {})}


def writes_an_empty_list(x: dict) -> dict:
    """Writes the quotes left even when none are: [] wakes feed again with nothing to take
    (it raised ValueError in step 6, with no word why)."""
    quote, *rest = x["quotes"]
    return {"quotes": rest, **({"price": quote} if quote != x.get("price") else {})}


def guards_an_empty_list(x: dict) -> dict:
    """The same, returning {} when woken with no quotes: it was told that at step 6 it
    wrote no quotes, when its mistake was the [] it wrote at step 5."""
    return writes_an_empty_list(x) if x["quotes"] else {}


REPEAT = "though quote 1 (100.0) repeats quote 0: step 1's Update moved price from version 2 to 3"


@pytest.mark.parametrize(
    ("feed", "said", "hint"),
    [
        (
            taking(lambda quote, x: None if quote == x.get("price") else quote),
            "holding None",
            "None is a value",
        ),
        (stops_at_a_repeat, "feed ran at steps [0, 1]", "woken by quotes"),
        (remembering(), "alert did not run at step 1", "still holds the last program's"),
        (
            first_only(),
            "alert ran at step 4, woken by price holding 101.5",
            "even of the same value",
        ),
        (forgets_the_last, "quote 5 (100.0) differs from quote 4 (101.5)", "The last quote counts"),
        (expects_a_price, "raised KeyError: 'price'", "may be missing"),
        (lambda x: None, "feed returned None, not a dict of writes", ""),
        (taking(lambda quote, x: quote), REPEAT, "every write moves the version"),
        (writes_an_empty_list, "an empty list", "only while some remain"),
        (guards_an_empty_list, "an empty list", "only while some remain"),
        (None, "not a function", ""),
    ],
)
def test_alert_on_change_wrong_answers(feed, said, hint):
    assert_fails(lesson19.check_alert_on_change(feed), said, hint=hint)


# -- 19.3 · Name what woke a node


def test_woke_passes_on_the_solution():
    verdict = assert_passes(lesson19.check_woke(solutions.woke))
    assert "each of the 21 tasks" in verdict.message


def newer_in(offset: int, value_needed: bool):
    """A ``woke`` that reads the checkpoint of ``step + offset``, with or without asking
    that the trigger hold a value."""

    def woke(checkpoints, triggers, node, step):
        before = checkpoints[step + offset]
        saw = before["versions_seen"].get(node, {})
        for channel in triggers[node]:
            version = before["channel_versions"].get(channel)
            if value_needed and channel not in before["channel_values"]:
                continue
            if version is not None and version > saw.get(channel, 0):
                return channel, version
        return None

    return woke


OWN = "not the step's own"


@pytest.mark.parametrize(
    ("woke", "said", "hint"),
    [
        (newer_in(0, True), "'__start__', 0) returned None", OWN),  # the step's own checkpoint
        (newer_in(0, False), "returned ('__start__', 2)", OWN),
        (newer_in(-1, False), "'c', 2) returned ('join:a+b:c', 3)", "every source"),
        (lambda c, t, node, step: (f"branch:to:{node}", step), "('branch:to:__start__'", OWN),
        # a dict is unhashable: the check's own `got in expected` raised TypeError
        (
            lambda c, t, node, step: {"channel": "__start__", "version": 1},
            "returned {'channel': '__start__', 'version': 1}, not a pair",
            "(channel, version)",
        ),
    ],
)
def test_woke_wrong_answers(woke, said, hint):
    assert_fails(lesson19.check_woke(woke), said, hint=hint)


def saved_means_holding(checkpoints, triggers, node, step):
    """Takes every saved trigger for one holding a value: a half-filled barrier too."""
    before = checkpoints[step - 1]
    saw = before["versions_seen"].get(node, {})
    for channel in triggers[node]:
        version = before["channel_versions"].get(channel)
        if channel in before["channel_values"] and version > saw.get(channel, 0):
            return channel, version
    return None


def test_woke_tells_a_waiting_barrier_from_one_holding_a_value():
    """A barrier that has heard from some of its sources is saved, with a new version, but
    holds no value: the check offers it before branch:to:c, so this rule names it."""
    verdict = assert_fails(
        lesson19.check_woke(saved_means_holding),
        "returned ('join:a+b:c', 3)",
        hint="every source its name lists",
    )
    assert "join:a+b:c at version 3 waiting (it has heard from ['a']" in verdict.message


# -- the lesson's claims, on LangGraph


def libraries() -> list[types.SimpleNamespace]:
    import graphkit

    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph

    return [
        types.SimpleNamespace(
            StateGraph=graphkit.StateGraph,
            START=graphkit.START,
            END=graphkit.END,
            Saver=graphkit.InMemorySaver,
        ),
        types.SimpleNamespace(StateGraph=StateGraph, START=START, END=END, Saver=InMemorySaver),
    ]


def whole(version: Any) -> int:
    return int(str(version).split(".")[0])


def saved(app: Any, thread: dict) -> dict:
    """Each checkpoint's step, versions, versions seen (nodes that saw something: LangGraph
    also keeps an empty entry for the input task) and next nodes."""
    out = {}
    for entry in reversed(list(app.checkpointer.list(thread))):
        checkpoint = entry.checkpoint
        out[entry.metadata["step"]] = (
            {c: whole(v) for c, v in checkpoint["channel_versions"].items()},
            {
                node: {c: whole(v) for c, v in seen.items()}
                for node, seen in checkpoint["versions_seen"].items()
                if seen
            },
        )
    return out


class Doc(TypedDict, total=False):
    text: str
    log: Annotated[list, operator.add]


class Job(TypedDict, total=False):
    status: str
    checks: Annotated[list, operator.add]
    lines: Annotated[list, operator.add]


class Trail(TypedDict, total=False):
    notes: Annotated[list, operator.add]


def observe_lesson(lib: Any) -> dict:
    """Sections 1 to 5 of the lesson, written against ``lib``: what a learner sees."""
    seen: dict = {}
    thread = {"configurable": {"thread_id": "t"}}

    builder = lib.StateGraph(Doc)
    builder.add_node("draft", lambda s: {"text": s["text"] + " (drafted)", "log": ["draft"]})
    builder.add_node("review", lambda s: {"log": ["review"]})
    builder.add_edge(lib.START, "draft")
    builder.add_edge("draft", "review")
    chain = builder.compile(checkpointer=lib.Saver())
    seen["chain"] = chain.invoke({"text": "notes"}, thread), saved(chain, thread)
    seen["triggers"] = {name: list(node.triggers) for name, node in chain.nodes.items()}

    builder = lib.StateGraph(Job)
    builder.add_node(
        "check", lambda s: {"status": "pending", "checks": [len(s.get("checks", [])) + 1]}
    )
    builder.add_node("log", lambda s: {"lines": [f"status: {s['status']}"]})
    builder.add_edge(lib.START, "check")
    builder.add_edge("check", "log")
    builder.add_conditional_edges(
        "check", lambda s: "check" if len(s["checks"]) < 3 else lib.END, ["check", lib.END]
    )
    job = builder.compile(checkpointer=lib.Saver())
    seen["job"] = job.invoke({}, thread), saved(job, thread)

    def fork(waiting: bool, stuck: bool = False) -> Any:
        builder = lib.StateGraph(Trail)
        for name in ("a", "slow", "b", "c"):
            builder.add_node(name, lambda s, name=name: {"notes": [name]})
        builder.add_edge(lib.START, "a")
        builder.add_edge(lib.START, "slow")
        if stuck:
            builder.add_conditional_edges("slow", lambda s: lib.END, ["b", lib.END])
        else:
            builder.add_edge("slow", "b")
        if waiting:
            builder.add_edge(["a", "b"], "c")
        else:
            builder.add_edge("a", "c")
            builder.add_edge("b", "c")
        return builder.compile(checkpointer=lib.Saver())

    for name, app in [
        ("two edges", fork(False)),
        ("waiting edge", fork(True)),
        ("stuck", fork(True, stuck=True)),
    ]:
        seen[name] = app.invoke({}, thread), saved(app, thread)
        seen[name + " triggers"] = list(app.nodes["c"].triggers)
    return seen


def test_the_lessons_graphs_do_on_graphkit_what_they_do_on_langgraph():
    ours, theirs = (observe_lesson(lib) for lib in libraries())
    assert ours == theirs
    chain = ours["chain"][1]
    assert chain[1][0] == {
        "__start__": 2,
        "text": 3,
        "branch:to:draft": 3,
        "log": 3,
        "branch:to:review": 3,
    }
    assert chain[2][1] == {
        "__start__": {"__start__": 1},
        "draft": {"branch:to:draft": 2},
        "review": {"branch:to:review": 3},
    }
    job = ours["job"][1]
    assert [job[step][0]["status"] for step in (1, 2, 3)] == [
        3,
        4,
        5,
    ]  # the same value, new versions
    assert ours["job"][0]["lines"] == ["status: pending"] * 3
    assert ours["two edges"][0]["notes"].count("c") == 2
    assert ours["waiting edge"][0]["notes"].count("c") == 1
    waiting = ours["waiting edge"][1]
    assert [waiting[step][0].get("join:a+b:c") for step in (1, 2, 3)] == [3, 4, 5]
    assert "c" not in ours["stuck"][0]["notes"]
    assert ours["waiting edge triggers"] == ["branch:to:c", "join:a+b:c"]


def ticker_on(lib: Any, feed: Any) -> Any:
    """``lesson19.ticker(feed)``, built with ``lib``'s own low-level API and checkpointer."""
    import graphkit

    if lib.StateGraph is graphkit.StateGraph:
        ours = lesson19.ticker(feed)
        return graphkit.pregel.Pregel(
            nodes=ours.nodes,
            channels=ours.channels,
            input_channels="quotes",
            output_channels="alerts",
            checkpointer=lib.Saver(),
        )
    from langgraph.channels import BinaryOperatorAggregate, LastValue
    from langgraph.pregel import NodeBuilder, Pregel
    from langgraph.pregel._write import SKIP_WRITE, ChannelWriteEntry

    writes = [
        ChannelWriteEntry(key, mapper=lambda out, key=key: out.get(key, SKIP_WRITE))
        for key in ("quotes", "price")
    ]
    return Pregel(
        nodes={
            "feed": NodeBuilder()
            .subscribe_to("quotes")
            .read_from("price")
            .do(feed)
            .write_to(*writes),
            "alert": NodeBuilder().subscribe_only("price").do(lambda p: [p]).write_to("alerts"),
        },
        channels={
            "quotes": LastValue(list),
            "price": LastValue(float),
            "alerts": BinaryOperatorAggregate(list, operator.add),
        },
        input_channels="quotes",
        output_channels="alerts",
        checkpointer=lib.Saver(),
    )


def test_the_exercise_program_does_on_graphkit_what_it_does_on_langgraph():
    """19.2's program, with the stub's feed, the solution's and one writing None: the same
    alerts, and in every saved checkpoint the same versions and versions seen (a write of
    the same value, or of None, moves price's version and wakes alert), on both
    libraries."""
    stub = stub_cells()["feed"]
    writes_none = taking(lambda quote, x: None if quote == x.get("price") else quote)
    quotes = [100.0, 100.0, 101.5, 101.5, 101.5, 100.0]
    runs = {}
    for feed in (stub, solutions.feed, writes_none):
        seen = []
        for lib in libraries():
            app = ticker_on(lib, feed)
            thread = {"configurable": {"thread_id": "t"}}
            seen.append((app.invoke(quotes, thread), saved(app, thread)))
        assert seen[0] == seen[1], feed
        runs[feed] = seen[0]
    assert runs[stub][0] == quotes
    assert runs[solutions.feed][0] == [100.0, 101.5, 100.0]
    assert runs[writes_none][0] == [100.0, None, 101.5, None, 101.5, 100.0]
    steps = runs[stub][1]  # price's version after steps 0 and 1: the same 100.0, new version
    assert (steps[0][0]["price"], steps[1][0]["price"]) == (2, 3)
    assert steps[2][1]["alert"] == {"price": 3}


def test_what_woke_each_node_reads_the_same_from_a_langgraph_thread():
    """19.3's solution, run on the checkpoints of the same graph's LangGraph thread (saved
    with durability="sync": with "async", LangGraph saves a barrier's set after the next
    step changed it), names the same triggers and versions."""
    answers = []
    for lib in libraries():
        builder = lib.StateGraph(lesson19.Notes)
        for name in ("a", "d", "slow", "b", "c"):
            builder.add_node(name, lambda s, name=name: {"notes": [name]})
        for source, target in [(lib.START, "a"), (lib.START, "d"), (lib.START, "slow")]:
            builder.add_edge(source, target)
        builder.add_edge("slow", "b")
        builder.add_edge("d", "c")
        builder.add_edge(["a", "b"], "c")
        app = builder.compile(checkpointer=lib.Saver())
        thread = {"configurable": {"thread_id": "t"}}
        app.invoke({}, thread, durability="sync")
        checkpoints = lesson19.saved_checkpoints(app, thread)
        triggers = {name: list(node.triggers) for name, node in app.nodes.items()}
        answers.append(
            {
                (node, step): solutions.woke(checkpoints, triggers, node, step)
                for step in checkpoints
                if step >= 0
                for node in triggers
            }
        )
    assert answers[0] == answers[1]
    assert answers[0][("c", 2)] == ("branch:to:c", 3)
    assert answers[0][("c", 3)] == ("join:a+b:c", 4)


def test_the_barriers_values_print_the_same_whatever_the_hash_seed():
    """A set of names prints in an order that depends on PYTHONHASHSEED, so a kernel
    could show {'b', 'a'} where the text says {'a', 'b'}: the cell prints them sorted."""
    import subprocess
    import sys

    script = (
        "from tests.course.cells import run_cells\n"
        "from tests.course.test_lesson19 import LESSON\n"
        "shown = run_cells(LESSON, until='twice = ', names={'display': print})\n"
        "print(shown['l19-c25'][0])\n"
    )
    printed = set()
    for seed in ("1", "2", "3", "4"):
        root = str(LESSON.parents[1])
        path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": path}
        out = subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        )
        printed.add(out.stdout)
    assert len(printed) == 1, printed
    assert "step 2: ['a'] -> ['a', 'b'], version 3 -> 4" in printed.pop()


def test_19_1s_worked_example_is_what_plan_inputs_reads():
    """The exercise text spells out the four arguments before step 2 of section 1's chain:
    they must be what the runtime's checkpoint holds, and the solution's answer."""
    import ast
    import json
    import re

    text = next(
        "".join(cell["source"])
        for cell in json.loads(LESSON.read_text())["cells"]
        if cell["id"] == "l19-c32"
    )
    call = re.search(r"```python\n(nodes_to_run\(.*?\))  # == (\{.*?\})\n```", text, re.DOTALL)
    said = {
        k.arg: ast.literal_eval(k.value) for k in ast.parse(call.group(1)).body[0].value.keywords
    }
    answer = ast.literal_eval(call.group(2))
    names: dict = {"display": print}
    run_cells(LESSON, until="chain = chain_builder", names=names)
    app = names["chain_builder"].compile()
    read = lesson19.plan_inputs(app, app.trace({"text": "notes"}).step(2).checkpoint_before)
    triggers = {node: list(channels) for node, channels in read[2].items()}
    versions, seen, _, ready = read
    assert said == {"versions": versions, "seen": seen, "triggers": triggers, "ready": ready}
    assert solutions.nodes_to_run(*read) == answer == {"review"}


def test_update_state_moves_versions_like_an_update():
    """Section 1: update_state gives the channels it writes the next version, and with
    as_node the branch:to: channels of that node's edges too, so the next node runs next;
    it leaves versions_seen alone. The same on graphkit and LangGraph."""
    answers = []
    for lib in libraries():
        builder = lib.StateGraph(Doc)
        builder.add_node("draft", lambda s: {"log": ["draft"]})
        builder.add_node("review", lambda s: {"log": ["review"]})
        builder.add_edge(lib.START, "draft")
        builder.add_edge("draft", "review")
        app = builder.compile(checkpointer=lib.Saver())
        thread = {"configurable": {"thread_id": "t"}}
        app.invoke({"text": "notes"}, thread)
        app.update_state(thread, {"text": "notes"})
        app.update_state(thread, {"text": "notes"}, as_node="draft")
        answers.append((saved(app, thread), app.get_state(thread).next))
    assert answers[0] == answers[1]
    steps, after = answers[0]
    assert steps[2][0]["text"] == 2 and steps[3][0]["text"] == 5  # highest was 4
    assert (steps[4][0]["text"], steps[4][0]["branch:to:review"]) == (6, 6)
    assert steps[4][1] == steps[2][1] and after == ("review",)


def test_a_barrier_written_again_by_a_source_it_heard_from_keeps_its_version():
    """The exception to "a channel written is a channel changed": `a` loops once and
    writes `join:a+b:c` in steps 1 and 2, before `b` (step 3). Its second write adds
    nothing the barrier had not heard, so step 2's Update leaves its version at 3; `b`'s
    write moves it. The same on graphkit and LangGraph."""
    answers = []
    for lib in libraries():
        builder = lib.StateGraph(Trail)
        for name in ("a", "s1", "s2", "b", "c"):
            builder.add_node(name, lambda state, name=name: {"notes": [name]})
        builder.add_edge(lib.START, "a")
        builder.add_edge(lib.START, "s1")
        builder.add_edge("s1", "s2")
        builder.add_edge("s2", "b")
        end = lib.END
        builder.add_conditional_edges(
            "a", lambda state, end=end: "a" if state["notes"].count("a") < 2 else end, ["a", end]
        )
        builder.add_edge(["a", "b"], "c")
        app = builder.compile(checkpointer=lib.Saver())
        thread = {"configurable": {"thread_id": "t"}}
        notes = app.invoke({}, thread)["notes"]
        steps = saved(app, thread)
        answers.append((notes, [steps[step][0].get("join:a+b:c") for step in (1, 2, 3)]))
    assert answers[0] == answers[1]
    assert answers[0] == (["a", "s1", "a", "s2", "b", "c"], [3, 3, 5])


def test_the_text_names_the_barrier_where_it_says_a_written_channel_gets_a_new_version():
    """Q1's answer said that a channel written in a step is a channel changed, and the
    summary that an Update gives a new version to every channel written, whatever the
    value: a barrier written again by a source it has heard from is written and keeps its
    version (the test above). Both sentences now name that exception."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]
    q1_answer = next(cell for cell in text if cell.startswith("<details>") and "**Higher**" in cell)
    summary = next(cell for cell in text if cell.startswith("## Summary"))
    for said in (q1_answer, summary):
        assert "not heard from" in " ".join(said.split()), said[:300]


def test_a_deferred_nodes_branch_channel_holds_its_value_until_nothing_else_runs():
    """The exception to "a branch:to: channel holds a value for one step": `a` (step 1)
    wakes `publish`, added with defer=True, while `s1 → s2 → s3` run on. Its channel keeps
    the value in the checkpoints of steps 1, 2 and 3, and publish runs in step 4, once
    nothing else is left (the channel's version moves then: 3, 3, 5). The same on
    graphkit and LangGraph."""
    answers = []
    for lib in libraries():
        builder = lib.StateGraph(Trail)
        for name in ("a", "s1", "s2", "s3"):
            builder.add_node(name, lambda state, name=name: {"notes": [name]})
        builder.add_node("publish", lambda state: {"notes": ["publish"]}, defer=True)
        builder.add_edge(lib.START, "a")
        builder.add_edge(lib.START, "s1")
        builder.add_edge("s1", "s2")
        builder.add_edge("s2", "s3")
        builder.add_edge("a", "publish")
        app = builder.compile(checkpointer=lib.Saver())
        thread = {"configurable": {"thread_id": "t"}}
        notes = app.invoke({}, thread)["notes"]
        held = {
            entry.metadata["step"]: "branch:to:publish" in entry.checkpoint["channel_values"]
            for entry in app.checkpointer.list(thread)
        }
        steps = saved(app, thread)
        versions = [steps[step][0].get("branch:to:publish") for step in (1, 2, 3)]
        answers.append((notes, [held[step] for step in (1, 2, 3, 4)], versions))
    assert answers[0] == answers[1]
    assert answers[0] == (["a", "s1", "s2", "s3", "publish"], [True, True, True, False], [3, 3, 5])


def test_the_text_names_defer_where_it_says_a_branch_channel_holds_a_value_for_one_step():
    """Section 1 and the summary said a branch:to: channel holds a value for one step: a
    deferred node's holds it until nothing else is left to run (the test above). Both
    sentences now say so."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = [" ".join("".join(cell["source"]).split()) for cell in cells]
    for said in [cell for cell in text if "for one step" in cell]:
        assert "defer" in said and "nothing else is left to run" in said, said[:300]
    assert len([cell for cell in text if "for one step" in cell]) == 2


def test_a_node_no_trigger_wakes_runs_when_a_send_goes_to_it():
    """The exception to "a node never runs when none of its triggers ever holds a value it
    has not seen": no edge leads to `c`, nothing writes `branch:to:c`, and a `Send` runs
    it all the same (Plan's rule: each packet is a task besides). Both libraries."""
    import graphkit

    pytest.importorskip("langgraph")
    from langgraph.types import Send

    for lib, send in zip(libraries(), (graphkit.Send, Send), strict=True):
        builder = lib.StateGraph(Trail)
        for name in ("a", "c"):
            builder.add_node(name, lambda state, name=name: {"notes": [name]})
        builder.add_edge(lib.START, "a")
        builder.add_conditional_edges("a", lambda state, send=send: [send("c", {})], ["c"])
        app = builder.compile()
        assert app.invoke({})["notes"] == ["a", "c"]


def test_the_text_names_send_where_a_node_never_runs():
    """Section 5 said a node never runs when none of its triggers ever holds a value it has
    not seen: a `Send` runs it anyway (the test above). The sentence says so now."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = [" ".join("".join(cell["source"]).split()) for cell in cells]
    said = next(cell for cell in text if "**A node never runs**" in cell)
    assert "`Send`" in said.split("**A node never runs**")[1], said
