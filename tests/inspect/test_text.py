"""The plain-text timeline (print(run), run.timeline()): exact strings."""

from __future__ import annotations

import re

import pytest

SEED_TIMELINE = "\n".join(
    [
        "5 supersteps, done",
        "step -1 (input)",
        "  PLAN     __input__",
        "  EXECUTE  __input__  wrote __start__",
        "  UPDATE   __start__  <empty> -> {'messages': [('user', 'hi')], 'token_count': 1}  (from __input__)",  # noqa: E501
        "step 0",
        "  PLAN     __start__          triggered by __start__",
        "  EXECUTE  __start__          wrote messages, token_count, branch:to:planner",
        "  UPDATE   messages           [] -> [('user', 'hi')]  (from __start__)",
        "  UPDATE   token_count        0 -> 1  (from __start__)",
        "  UPDATE   branch:to:planner  <empty> -> None  (from __start__)",
        "  UPDATE   (runtime)          cleared __start__",
        "step 1",
        "  PLAN     planner            triggered by branch:to:planner",
        "  EXECUTE  planner            wrote plan, token_count, branch:to:weather, branch:to:news",
        "  UPDATE   plan               <empty> -> 'check the weather and the news'  (from planner)",
        "  UPDATE   token_count        1 -> 101  (from planner)",
        "  UPDATE   branch:to:weather  <empty> -> None  (from planner)",
        "  UPDATE   branch:to:news     <empty> -> None  (from planner)",
        "  UPDATE   (runtime)          cleared branch:to:planner",
        "step 2",
        "  PLAN     news                 triggered by branch:to:news",
        "  PLAN     weather              triggered by branch:to:weather",
        "  EXECUTE  news                 wrote news, token_count, branch:to:summarize",
        "  EXECUTE  weather              wrote weather, token_count, branch:to:summarize",
        "  UPDATE   news                 <empty> -> 'market up'  (from news)",
        "  UPDATE   token_count          101 -> 201  (from news, weather)",
        "  UPDATE   branch:to:summarize  <empty> -> None  (from news, weather)",
        "  UPDATE   weather              <empty> -> 'sunny'  (from weather)",
        "  UPDATE   (runtime)            cleared branch:to:news, branch:to:weather",
        "step 3",
        "  PLAN     summarize            triggered by branch:to:summarize",
        "  EXECUTE  summarize            wrote messages",
        "  UPDATE   messages             [('user', 'hi')] -> [('user', 'hi'), ('ai', 'sunny; market up')]",  # noqa: E501
        "                                (from summarize)",
        "  UPDATE   (runtime)            cleared branch:to:summarize",
        "the run is done: step 4's Plan triggers no task",
    ]
)


def test_seed_timeline_exactly(seed_run):
    assert seed_run.timeline() == SEED_TIMELINE


def test_the_title_counts_as_many_supersteps_as_the_timeline_has_headers(seed_run, loop_run):
    # "5 supersteps, done" then a sixth "step 4" header for the Plan that found nothing
    # had a learner of lesson 01 count one step too many.
    for run in (seed_run, loop_run):
        lines = run.timeline().splitlines()
        headers = [line for line in lines if re.fullmatch(r"step -?\d+( \(input\))?", line)]
        assert lines[0].startswith(f"{len(headers)} supersteps, ")


def test_a_long_line_goes_on_under_its_text_broken_at_a_space(seed_run):
    """JupyterLab breaks an output line wherever it reaches the cell's edge: lesson 02's
    timeline read "(from summ" / "arize)" at 1280 pixels. A line past 100 characters now
    goes on under its text column, broken at a space; ``width=None`` keeps it whole."""
    lines = seed_run.timeline().splitlines()
    assert max(map(len, lines)) <= 100
    at = lines.index("                                (from summarize)")
    assert lines[at - 1].endswith("('ai', 'sunny; market up')]")
    whole = seed_run.timeline(width=None).splitlines()
    assert f"{lines[at - 1]}  {lines[at].strip()}" in whole
    assert len(whole) == len(lines) - 1
    narrow = seed_run.timeline(width=60).splitlines()
    assert max(map(len, narrow)) <= 60
    assert " ".join(narrow).split() == " ".join(whole).split()  # no word, no name broken


def test_print_run_prints_the_timeline_and_repr_stays_short(seed_run, capsys):
    print(seed_run)
    assert capsys.readouterr().out == SEED_TIMELINE + "\n"
    assert repr(seed_run) == "Run(steps=5, status='done')"


def test_a_failed_step_shows_the_error_and_a_skipped_update(failing_run):
    assert failing_run.timeline().splitlines()[-7:] == [
        "step 1",
        "  PLAN     bad  triggered by branch:to:bad",
        "  PLAN     ok   triggered by branch:to:ok",
        "  EXECUTE  bad  raised ValueError: bad <script>alert(1)</script>",
        "  EXECUTE  ok   wrote log, branch:to:after",
        "  UPDATE   skipped: a task failed, so no channel changed",
        "the run failed at step 1: bad raised ValueError: bad <script>alert(1)</script>",
    ]


def test_the_recursion_limit_ends_the_timeline(loop_run):
    assert loop_run.timeline().splitlines()[-6:] == [
        "step 3",
        "  PLAN     spin            triggered by branch:to:spin",
        "  EXECUTE  spin            wrote x, branch:to:spin",
        "  UPDATE   x               2 -> 3  (from spin)",
        "  UPDATE   branch:to:spin  None -> None  (from spin)",
        "the run stopped before step 4: the recursion limit was reached (GraphRecursionError)",
    ]
    assert loop_run.timeline().splitlines()[0] == "5 supersteps, out_of_steps"


def test_durations_are_shown_only_when_asked(seed_run):
    lines = seed_run.timeline(durations=True).splitlines()
    planner = next(line for line in lines if line.startswith("  EXECUTE  planner"))
    assert re.fullmatch(
        r"  EXECUTE  planner +\([0-9.]+ (µs|ms|s)\) wrote plan, token_count, "
        r"branch:to:weather, branch:to:news",
        planner,
    )


def test_a_running_run_says_which_step_is_next(seed_app):
    stepper = seed_app.stepper({"messages": [], "token_count": 0})
    stepper.step()
    stepper.step()
    stepper.plan()
    lines = stepper.run_so_far.timeline().splitlines()
    assert lines[0] == "3 supersteps, running"
    assert lines[-2:] == [
        "  PLAN     planner  triggered by branch:to:planner",
        "still running: step 1's Execute is next",
    ]
    stepper.execute()
    assert stepper.run_so_far.timeline().splitlines()[-1] == (
        "still running: step 1's Update is next"
    )
    stepper.update()
    assert stepper.run_so_far.timeline().splitlines()[-1] == "still running: step 2 is next"


def test_multiline_errors_stay_on_one_line(make):
    def fail(state):
        raise ValueError("first line\nsecond line")

    app = make([("fail", fail)], [("__start__", "fail")])
    try:
        app.trace({"x": 0, "log": []})
    except ValueError as error:
        run = error.run
    assert run.timeline().splitlines()[-1] == (
        "the run failed at step 1: fail raised ValueError: first line second line"
    )


TERMINAL_ATTACKS = {
    "clear\x1b[2J\x1b[H": "clear\\x1b[2J\\x1b[H",  # clears the screen
    "title\x1b]0;pwned\x07": "title\\x1b]0;pwned\\x07",  # retitles the terminal
    "csi\x9b31m": "csi\\x9b31m",  # a C1 control: CSI in one character
    "back\rover": "back\\rover",  # returns to the line start and overwrites
    "fake\n  EXECUTE  root  wrote everything": "fake\\n  EXECUTE  root  wrote everything",
    "rlo\u202edesrever": "rlo\\u202edesrever",  # right-to-left override
}


def test_control_characters_in_names_and_errors_are_shown_escaped(make):
    """A node name or error message cannot clear the screen, retitle the terminal or
    fake a row of the timeline: every control character is shown as its escape."""
    names = list(TERMINAL_ATTACKS)

    def fail(state):
        raise ValueError("boom\x1b[2J\x07\r")

    app = make(
        [*names, ("bad\x1b[31m", fail)],
        [*[("__start__", name) for name in names], (names[0], "bad\x1b[31m")],
    )
    try:
        app.trace({"x": 0, "log": []})
    except ValueError as error:
        run = error.run
    text = run.timeline()
    assert all(character.isprintable() for line in text.splitlines() for character in line)
    for escaped in TERMINAL_ATTACKS.values():
        assert f"  EXECUTE  {escaped}" in text
    assert text.splitlines()[-1] == (
        "the run failed at step 2: bad\\x1b[31m raised ValueError: boom\\x1b[2J\\x07\\r"
    )
    # one EXECUTE line per name in step 1: no fake rows
    step_1 = text.split("step 1\n")[1].split("step 2\n")[0].splitlines()
    assert sum(line.startswith("  EXECUTE") for line in step_1) == len(names)


def _paused_run(**compile_options):
    from typing import TypedDict

    from graphkit import START, InMemorySaver, StateGraph, interrupt

    class Draft(TypedDict):
        text: str

    builder = StateGraph(Draft)
    builder.add_node("write", lambda state: {"text": "draft"})
    builder.add_node("review", lambda state: {"text": state["text"] + interrupt("ok?")})
    builder.add_edge(START, "write")
    builder.add_edge("write", "review")
    app = builder.compile(checkpointer=InMemorySaver(), **compile_options)
    return app.trace({"text": ""}, {"configurable": {"thread_id": "t"}})


def test_a_run_paused_by_interrupt_says_who_asked_and_how_to_resume():
    run = _paused_run()
    assert run.status == "interrupted"
    assert str(run).splitlines()[-1] == (
        "paused in step 2: review called interrupt(); resume with Command(resume=...) "
        "on the same thread"
    )


def test_a_run_paused_at_a_breakpoint_says_which_step_is_next():
    last = str(_paused_run(interrupt_before=["review"])).splitlines()[-1]
    assert last == (
        "paused at a breakpoint: step 2 is next; go on with invoke(None, config) on the same thread"
    )


def test_a_run_paused_at_a_subgraph_s_breakpoint_names_the_subgraph_node():
    from typing import TypedDict

    from graphkit import START, InMemorySaver, StateGraph

    class Draft(TypedDict):
        text: str

    inner = StateGraph(Draft)
    inner.add_node("write", lambda state: {"text": "draft"})
    inner.add_node("polish", lambda state: {"text": state["text"] + "!"})
    inner.add_edge(START, "write").add_edge("write", "polish")
    builder = StateGraph(Draft).add_node("drafting", inner.compile(interrupt_before=["polish"]))
    app = builder.add_edge(START, "drafting").compile(checkpointer=InMemorySaver())
    run = app.trace({"text": ""}, {"configurable": {"thread_id": "t"}})
    assert run.status == "interrupted"
    assert run.timeline(width=None).splitlines()[-1] == (
        "paused in step 1: the subgraph drafting ran stopped at one of its breakpoints; go on "
        "with invoke(None, config) on the same thread"
    )
    assert run.steps[-1].execution.results[0].paused


def test_a_resumed_task_says_what_it_was_answered():
    from typing import TypedDict

    from graphkit import START, Command, InMemorySaver, StateGraph, interrupt

    class Draft(TypedDict):
        text: str

    def review(state):
        return {"text": interrupt("ok?") + interrupt("sure?")}

    builder = StateGraph(Draft).add_node("review", review).add_edge(START, "review")
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"text": ""}, config)
    app.invoke(Command(resume="yes"), config)
    run = app.trace(Command(resume="!"), config)
    execute = " ".join(run.timeline(width=None).splitlines()[3].split())  # (widths aside)
    assert execute == (
        "EXECUTE review resumed with 'yes', '!' (it ran again from its start: what it did "
        "before interrupt() was done again); wrote text"
    )
    assert "resumed with" in run._repr_html_()


def test_a_long_value_with_no_space_is_broken_with_a_mark_not_left_past_the_width():
    """A value with no space (a URL, a hash) stayed whole past the width, so a notebook
    or a terminal cut it mid-word at its edge with no sign of it. It is broken to fit,
    after a part of it (``/``) where it has one, each piece but the last ending ``↩``;
    ``width=None`` (``graphkit trace`` into a pipe) keeps one line per change."""
    from typing import TypedDict

    from graphkit import START, StateGraph

    class Page(TypedDict):
        url: str
        digest: str

    url = "https://example.com/" + "a1b2c3d4e5/" * 4 + "?token=" + "f" * 20
    digest = "sha256:" + "0123456789abcdef" * 4

    def fetch(state: Page) -> Page:
        return {"url": url, "digest": digest}

    builder = StateGraph(Page).add_node("fetch_the_document", fetch)
    run = builder.add_edge(START, "fetch_the_document").compile().trace({"url": "", "digest": ""})
    whole = run.timeline(width=None).splitlines()
    shown = whole[-4].split()[4]  # (the value as a line shows it: cut at its width, …)
    assert url.startswith(shown.strip("'…")) and len(shown) > 50
    for width in (100, 80, 60):
        lines = run.timeline(width=width).splitlines()
        assert max(map(len, lines)) <= width, width
        at = next(i for i, line in enumerate(lines) if "'https://" in line)
        pieces = [lines[at]]
        while pieces[-1].endswith("↩"):
            pieces.append(lines[at + len(pieces)])
        assert len(pieces) > 1 and pieces[0].endswith("/↩")  # (after a part of the URL)
        assert "".join(piece.strip().removesuffix("↩") for piece in pieces) == shown
        # nothing else changed: the same words, the broken ones joined again
        joined = re.sub(r"↩ +", "", " ".join(lines)).split()
        assert joined == " ".join(whole).split()


def test_a_word_broken_to_fit_keeps_every_character_of_it():
    """A cut next to a no-break space dropped it (the pieces were stripped of Unicode
    whitespace textwrap does not break at): the value read changed."""
    from graphkit.inspect.folding import CONTINUED, fold

    word = "a" * 14 + "\u00a0\u2003" + "b" * 30
    lines = fold("x " + word, 20, 4)
    assert all(len(line) <= 20 for line in lines)
    pieces = [line[4:] for line in lines[1:]]
    assert "".join(piece.removesuffix(CONTINUED) for piece in pieces) == word


def test_a_command_to_end_says_so_where_a_node_wrote_nothing():
    """A supervisor's last turn returns ``Command(goto=END)``: print(run) read "EXECUTE
    supervisor wrote nothing", as for a node that returned ``{}`` (lesson 16)."""
    from typing import TypedDict

    from graphkit import END, START, Command, StateGraph

    builder = StateGraph(TypedDict("Counter", {"n": int}))
    builder.add_node("supervisor", lambda state: Command(goto=END))
    builder.add_node("quiet", lambda state: {})
    builder.add_edge(START, "supervisor").add_edge(START, "quiet")
    lines = [" ".join(line.split()) for line in str(builder.compile().trace({"n": 1})).splitlines()]
    assert "EXECUTE supervisor wrote nothing: it returned Command(goto=END)" in lines
    assert "EXECUTE quiet wrote nothing" in lines


def test_a_list_of_commands_to_end_says_so_too():
    """A node may return a list of Commands; [Command(goto=END)] read "wrote nothing"
    while Command(goto=END) read as a route to END. A goto to END with an update says
    what it wrote and that it ended, and an empty goto is no END."""
    from typing import TypedDict

    from graphkit import END, START, Command, StateGraph

    def line(returned):
        builder = StateGraph(TypedDict("Counter", {"n": int}))
        builder.add_node("supervisor", lambda state: returned).add_edge(START, "supervisor")
        text = str(builder.compile().trace({"n": 1}))
        lines = [" ".join(x.split()) for x in text.splitlines()]
        return next(x for x in lines if x.startswith("EXECUTE supervisor"))

    ended = "EXECUTE supervisor wrote nothing: it returned Command(goto=END)"
    assert line([Command(goto=END)]) == ended
    assert line(Command(goto=[END])) == ended
    assert line(Command(goto=END, update={"n": 2})) == (
        "EXECUTE supervisor wrote n; it returned Command(goto=END)"
    )
    assert line(Command(goto=[])) == "EXECUTE supervisor wrote nothing"
    assert line([Command(goto=END), Command(update={"n": 2})]) == "EXECUTE supervisor wrote n"


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_command_to_end_that_wrote_state_says_it_ended_the_run_too(library):
    """A supervisor's last turn that also writes, ``Command(goto=END, update={"n": 3})``,
    read "wrote n" in print(run) and only "n = 3" on its card, as a node that wrote n
    and went on by its edges does; only "wrote nothing" named the Command."""
    from typing import TypedDict

    if library == "langgraph":
        pytest.importorskip("langgraph")
        from langgraph.graph import END, START, StateGraph
        from langgraph.types import Command

        from graphkit.bridge import from_langgraph
    else:
        from graphkit import END, START, Command, StateGraph

    builder = StateGraph(TypedDict("Counter", {"n": int}))
    builder.add_node("supervisor", lambda state: Command(goto=END, update={"n": 3}))
    builder.add_node("quiet", lambda state: Command(goto=END))
    builder.add_edge(START, "supervisor").add_edge(START, "quiet")
    app = builder.compile()
    assert app.invoke({"n": 1}) == {"n": 3}
    run = (from_langgraph(app) if library == "langgraph" else app).trace({"n": 1})
    lines = [" ".join(line.split()) for line in str(run).splitlines()]
    assert "EXECUTE supervisor wrote n; it returned Command(goto=END)" in lines
    assert "EXECUTE quiet wrote nothing: it returned Command(goto=END)" in lines
    card = run.step(1)._repr_html_()
    assert card.count("it returned Command(goto=END)") == 2
    assert "wrote nothing: it returned Command(goto=END)" in card


def test_a_run_stepped_without_recording_says_so_not_that_nothing_was_planned(seed_app):
    # it said "the run is done without a step: the checkpoint it went on from planned no
    # task", advice for a finished thread, of a run that ran every step
    run = seed_app.stepper({"messages": [("user", "hi")]}, record=False).run()
    assert run.values["messages"][-1] == ("ai", "sunny; market up")
    assert run.timeline(width=None) == (
        "0 supersteps, done\n"
        "the run is done; its supersteps were not recorded (record=False): trace it, or "
        "step it with record=True, to see them"
    )
