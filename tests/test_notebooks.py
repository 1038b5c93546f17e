"""The course's notebooks: committed clean, shaped as lessons, and run top to bottom in a
real kernel (nbclient) with no error and no network."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import itertools
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

FOLDER = Path(__file__).parent.parent / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
LESSONS = [path for path in NOTEBOOKS if re.match(r"\d\d-", path.name)]
APPENDICES = [path for path in NOTEBOOKS if path.name.startswith("A")]
WIDGET = "application/vnd.jupyter.widget-view+json"
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d")
ABSOLUTE_PATH = re.compile(r"(?<![\w.])(/(?:work|home|root|tmp|Users)/|[A-Z]:\\\\)")


def test_the_course_lessons_are_numbered_in_order():
    numbers = [int(path.name[:2]) for path in LESSONS]
    assert numbers == list(range(1, 28)), [path.name for path in LESSONS]


def test_the_course_page_quotes_each_lessons_own_time():
    """docs/course.md's table says its learner times are the lessons' own estimates."""
    table = (FOLDER.parent / "docs" / "course.md").read_text()
    for path in LESSONS:
        own = re.search(r"\*\*Time:\*\* about (\d+) minutes", path.read_text())
        row = re.search(rf"^\| {path.name[:2]} \|.*\| ~(\d+) min \|$", table, re.M)
        assert own and row, path.name
        assert row.group(1) == own.group(1), f"{path.name}: {row.group(1)} vs {own.group(1)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_is_committed_clean(path):
    text = path.read_text(encoding="utf-8")
    assert len(text) < 200_000, f"{path.name} is {len(text)} bytes: commit it without outputs"
    notebook = json.loads(text)
    assert set(notebook["metadata"]) <= {"kernelspec", "language_info"}
    for cell in notebook["cells"]:
        assert re.fullmatch(r"[A-Za-z0-9-]{1,64}", cell.get("id", "")), cell.get("id")
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [], f"{path.name} cell {cell['id']} has outputs"
            assert cell["execution_count"] is None
        assert not cell.get("metadata", {}).get("execution"), "no execution timestamps"
    assert not TIMESTAMP.search(text), f"{path.name} holds a timestamp"
    assert not ABSOLUTE_PATH.search(text), f"{path.name} holds an absolute path"


@pytest.mark.parametrize("path", LESSONS, ids=lambda path: path.name)
def test_lesson_has_the_shape_of_a_lesson(path):
    notebook = nbformat.read(path, as_version=4)
    markdown = [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]
    number = path.name[:2]
    assert markdown[0].startswith(f"# {number} · "), markdown[0][:60]
    assert "You will learn" in markdown[0] and "Time:" in markdown[0]
    headings = [line for text in markdown for line in text.splitlines()]
    assert "## Summary" in headings and "## Exercises" in headings
    assert headings.index("## Summary") < headings.index("## Exercises")
    exercises = [line for line in headings if line.startswith(f"### {int(number)}.")]
    assert 2 <= len(exercises) <= 4, exercises
    checks = importlib.import_module(f"graphkit.course.lesson{number}")
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    called = set(re.findall(rf"lesson{number}\.(check_\w+)\(", code))
    assert len(called) == len(exercises), "each exercise (### N.k heading) calls its own check"
    assert all(hasattr(checks, name) for name in called)
    importlib.import_module(f"graphkit.course.solutions.lesson{number}")


# A question, as docs/hooks.py recognises one to fold its saved answer on the site: a code
# cell calling ``.predict(`` (a DebugSession's), or a guess's stub (``# your guess``) that
# the cells after it judge, running the graph and printing the truth, as lessons 12 and 13
# ask. (An exercise's stub says ``# your answer``: its check judges it.)
PREDICT_CALL = ".predict("
GUESS_STUB = "# your guess"


def asks(cell) -> bool:
    """Whether ``cell`` asks a question (``PREDICT_CALL`` or ``GUESS_STUB``)."""
    return cell.cell_type == "code" and (PREDICT_CALL in cell.source or GUESS_STUB in cell.source)


def test_a_question_is_what_the_docs_hook_folds():
    """The rule above is docs/hooks.py's: each run of cells the site folds opens with a
    question, and each question's cells are folded."""
    pytest.importorskip("mkdocs")
    spec = importlib.util.spec_from_file_location(
        "graphkit_docs_hooks", FOLDER.parent / "docs" / "hooks.py"
    )
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    assert (hooks.PREDICT_CALL, hooks.GUESS_STUB) == (PREDICT_CALL, GUESS_STUB)
    for path in LESSONS:
        cells = nbformat.read(path, as_version=4).cells
        folded = set(hooks.revealing_cells(str(path)))
        for i, cell in enumerate(cells):
            if asks(cell) and PREDICT_CALL in cell.source:
                assert cell.id in folded, f"{path.name} {cell.id}"
            if asks(cell) and i + 1 < len(cells) and cells[i + 1].cell_type == "code":
                assert cells[i + 1].id in folded, f"{path.name} {cells[i + 1].id}"


def test_the_docs_hook_folds_no_exercise():
    """An exercise's verdict is its check's output, shown on the site: a check call or an
    exercise's stub (``# your answer``) in the cells after a question, before the next
    Markdown, would be folded with the question's answer."""
    pytest.importorskip("mkdocs")
    spec = importlib.util.spec_from_file_location(
        "graphkit_docs_hooks", FOLDER.parent / "docs" / "hooks.py"
    )
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    for path in LESSONS:
        folded = set(hooks.revealing_cells(str(path)))
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.id in folded:
                exercise = CHECK_CALL.search(cell.source) or "# your answer" in cell.source
                assert not exercise, f"{path.name} {cell.id} folds an exercise"


def test_lessons_12_to_27_ask_their_questions_by_a_guess():
    """Each **Qn ·** of lessons 12 to 17 is followed, before the next Markdown, by a
    question the checks below recognise: none escapes them."""
    guess_lessons = (
        "12-failures-and-retries",
        "13-functional-api",
        "14-long-term-memory",
        "15-what-a-node-knows",
        "16-supervisor-and-handoffs",
        "17-debug-your-langgraph-app",
        "18-async-and-concurrency",
        "19-channel-versions",
        "20-subgraphs-in-depth",
        "21-tools-in-depth",
        "22-state-schemas-in-depth",
        "23-testing-a-graph",
        "24-messages-in-depth",
        "25-what-the-drawing-shows",
        "26-workflows-and-agents",
        "27-streaming-into-an-app",
    )
    for name in guess_lessons:
        cells = nbformat.read(FOLDER / f"{name}.ipynb", as_version=4).cells
        labels = [i for i, c in enumerate(cells) if re.search(r"\*\*Q\d+ ·", c.source)]
        assert (
            len(labels)
            == {
                "12": 4,
                "13": 2,
                "14": 3,
                "15": 3,
                "16": 2,
                "17": 2,
                "18": 3,
                "19": 2,
                "20": 4,
                "21": 5,
                "22": 4,
                "23": 3,
                "24": 4,
                "25": 3,
                "26": 3,
                "27": 3,
            }[name[:2]]
        ), name
        for i in labels:
            block = itertools.takewhile(lambda c: c.cell_type == "code", cells[i + 1 :])
            assert any(asks(c) for c in block), f"{name} {cells[i].id} asks nothing"


# A collapsed block whose Markdown renders in JupyterLab, on GitHub and on the site: a blank
# line after the summary and before the end, so the body is Markdown, not raw HTML.
FOLDED = re.compile(r"<details>\n<summary>[^\n]+</summary>\n\n.+?\n\n</details>", re.DOTALL)


def test_a_predict_questions_answer_is_folded_until_opened():
    """The prose right after a question's reveal explains the answer, so it opens with a
    collapsed ``<details>`` block: read in full, it handed the answer to a learner who
    scrolled on before guessing (lesson 02's "`weather` saw 120" sat under the Q1 cell).
    A question is a predict cell or a guess's stub (``asks``)."""
    shown = []
    for path in LESSONS:
        cells = nbformat.read(path, as_version=4).cells
        for i, cell in enumerate(cells):
            if not asks(cell):
                continue
            after = next((c for c in cells[i + 1 :] if asks(c) or c.cell_type == "markdown"), None)
            if after is None or after.cell_type == "code":
                continue  # another question follows: the prose after it answers both
            if not FOLDED.match(after.source):
                shown.append(f"{path.name} {after.id}: {after.source[:60]!r}")
    assert shown == [], "prose right after a question shows its answer: " + "; ".join(shown)


def seen_before_guessing(cells: list, question: int) -> str:
    """What a learner reading down to the question ``cells[question]`` sees before
    running a guess, whitespace collapsed: every cell above it, it and the code cells after
    it up to the prose that explains the answer, that prose without its fold, and the cell
    after that prose (the rest of the screen)."""
    seen = [cell.source for cell in cells[: question + 1]]
    rest = iter(cells[question + 1 :])
    for cell in rest:
        if cell.cell_type == "markdown":
            seen.append(FOLDED.sub("", cell.source))
            seen.extend(cell.source for cell in [next(rest, None)] if cell is not None)
            break
        seen.append(cell.source)
    return " ".join(" ".join(seen).split())


# What a review found the lessons said or ran before their questions, each a question's
# answer: the setup ("so both run in step 2"), the goals ("fail with InvalidUpdateError"),
# a heading, a comment, or a cell right after the question (`except InvalidUpdateError`).
GIVEAWAYS = {
    ("03-state-channels-reducers", "l03-c54"): [
        "fail with `InvalidUpdateError`",
        "except InvalidUpdateError",
        "when an Update fails, `app.trace` raises",
        "The `LastValue` conflict",  # the section's heading, read before the guess
    ],
    ("04-routing-fanout-fanin", "l04-c18"): [
        "so both run in step 2",
        "its router writes branch:to:flights",
        "both run in the next step",
    ],
    ("04-routing-fanout-fanin", "l04-c20"): ["runs twice"],
    ("05-send-command-subgraphs", "l05-c07"): ["one **push** task per packet, all in the next"],
    ("06-messages-and-agents", "l06-c14"): [
        "step N+1 the tools run",
        "The loop is three supersteps",
        "each turn is its own superstep",
    ],
    ("06-messages-and-agents", "l06-c15"): ['run.why("assistant", 3'],
    ("10-bsp-beyond-agents", "l10-c13"): ["offered `4` to `inbox:B` and `1` to `inbox:C`"],
    ("10-bsp-beyond-agents", "l10-c27"): [
        "an error class such as `InvalidUpdateError`",
        "for a prediction in section 5",
    ],
    ("12-failures-and-retries", "l12-c18"): [
        "`next` leaves out the tasks whose writes are saved",  # and printed ('shipping',)
        "state.next",
    ],
    ("12-failures-and-retries", "l12-c33"): ["its only edge goes to `__end__`"],
    ("15-what-a-node-knows", "l15-c06"): ["reads `recursion_limit − N`", "read 3"],
    ("15-what-a-node-knows", "l15-c13"): ["from the cache, not run again", "planned in Plan"],
    ("15-what-a-node-knows", "l15-c18"): ["input alone", "stale"],
    ("16-supervisor-and-handoffs", "l16-c05"): ["[1, 3, 5]", "Steps 1, 3 and 5", "once more"],
    ("16-supervisor-and-handoffs", "l16-c16"): ["Step 2", "Five", "one task of the parent"],
    ("17-debug-your-langgraph-app", "l17-c06"): ["Step 4", "['wiki/tides'] -> ['wiki/moon']"],
    ("17-debug-your-langgraph-app", "l17-c17"): [
        "**`write_answer`**",
        "skipped a tool",
        "as the node that wrote last",
    ],
    ("18-async-and-concurrency", "l18-c11"): ["task order", "Lima first", "Lima: rain', 'Oslo"],
    ("18-async-and-concurrency", "l18-c16"): ["no other coroutine runs", "stalls", "lookup done"],
    ("18-async-and-concurrency", "l18-c23"): ["at most 2", "caps how many", "all in **one**"],
    ("19-channel-versions", "l19-c15"): [
        "whatever the value",
        "does not compare values",
        "Step 4 ran only",
    ],
    ("19-channel-versions", "l19-c20"): [
        "gave `join:a+b:c` version 3",
        "saw **4**",
        "and saw 4",
        "holds a value only once",
    ],
    ("20-subgraphs-in-depth", "l20-c10"): [
        "**2** checkpoints",
        "3 checkpoints",
        "has not finished",  # the parent's step 1: so no checkpoint of it yet
        "saves none",
        "next ('ask',)",
    ],
    ("20-subgraphs-in-depth", "l20-c20"): [
        "its finished nodes do not run again",
        "went on from its last one",
        "'review': 2, 'write': 1",
    ],
    ("20-subgraphs-in-depth", "l20-c27"): [
        "namespace **per node**",
        "['hi', 'again']",
        "own thread",
    ],
    ("20-subgraphs-in-depth", "l20-c34"): ["raises `RuntimeError`", "except RuntimeError"],
    ("21-tools-in-depth", "l21-c07"): ["one task", "**One** task", "in the order of the calls"],
    ("21-tools-in-depth", "l21-c14"): ["in task order", "writes in task order"],
    ("21-tools-in-depth", "l21-c19"): ["stops the run", "ends the run", "catches only"],
    ("21-tools-in-depth", "l21-c32"): ["ValueError", "checks that a `Command`"],
    ("21-tools-in-depth", "l21-c39"): ["twice", "**Two.**", "runs again the whole task"],
    ("22-state-schemas-in-depth", "l22-c11"): [
        "not in the result**",
        "KeyError 'nights'",
        "is never written",
        "never written",
    ],
    ("22-state-schemas-in-depth", "l22-c22"): ["every field", "appended the whole list", "twice"],
    ("22-state-schemas-in-depth", "l22-c27"): [
        "before the next node",
        "names the **reader**",
        "refused before",
        "Before task with name 'price'",
    ],
    ("22-state-schemas-in-depth", "l22-c34"): ["once per task", "**2** calls", "' oslo '"],
    ("23-testing-a-graph", "l23-c09"): ["its update, not the state", '== {"category": "refund"}'],
    ("23-testing-a-graph", "l23-c20"): ["[30, 30]", "ledger is [30, 30]", "appended a second"],
    ("23-testing-a-graph", "l23-c25"): ["runs **twice**", "steps 3 and 4", "4: ['close']"],
    ("24-messages-in-depth", "l24-c07"): ["**Step 0**", "**the same id**", "step 0's **Update**"],
    ("24-messages-in-depth", "l24-c17"): ["vanished", "**Two** messages", "replaced the message"],
    ("24-messages-in-depth", "l24-c28"): ["holds a tuple", "no conversion", "skips the reducer"],
    ("24-messages-in-depth", "l24-c41"): ["**4, 3 and 2", "appended**, at the end", "4, 3 and 2"],
    ("25-what-the-drawing-shows", "l25-c12"): ["**Twice", "steps 2 and 3", "runs twice"],
    ("25-what-the-drawing-shows", "l25-c21"): ["every node", "→ __end__`**", "none labelled"],
    ("25-what-the-drawing-shows", "l25-c36"): ["**Three `write`", "all in step 2", "publish` once"],
    ("26-workflows-and-agents", "l26-c18"): ["3 steps, the second", "for 40 sections too", "3: ["],
    ("26-workflows-and-agents", "l26-c22"): ["plan's order", "task order", "Moon, Sun, Coasts"],
    ("26-workflows-and-agents", "l26-c29"): ["**5 rounds", "steps 1 to 10", "⌊(N − 1)/2⌋"],
    ("27-streaming-into-an-app", "l27-c10"): ["**3 custom", "6 values", "sends none"],
    ("27-streaming-into-an-app", "l27-c15"): ['and `"summarize"`', "summarize ('research',)"],
    ("27-streaming-into-an-app", "l27-c25"): ["**1 custom", "only the top graph's", "not sent"],
}


def test_no_question_is_answered_before_the_learner_guesses():
    told = []
    for (lesson, question), answers in GIVEAWAYS.items():
        cells = nbformat.read(FOLDER / f"{lesson}.ipynb", as_version=4).cells
        index = next(i for i, cell in enumerate(cells) if cell.id == question)
        assert asks(cells[index]), f"{lesson} {question} asks no question"
        seen = seen_before_guessing(cells, index)
        told += [f"{lesson} {question}: {answer!r}" for answer in answers if answer in seen]
    assert told == [], "said before the question is guessed: " + "; ".join(told)


def test_no_step_card_shows_a_questions_answer():
    """A cell that steps a question's session and ends with ``session.step()`` shows that
    step's card, whose writes say what the next step runs (lesson 04's step 1 card listed
    ``branch:to:flights`` and ``branch:to:hotel_search`` above "which nodes run in step
    2?", lesson 05's three ``Send``s above "how many tasks?"): before a question, such a
    cell ends with ``;``, which keeps the card out of sight."""
    shown = []
    for path in LESSONS:
        asked = 0  # the cell after the last question
        cells = nbformat.read(path, as_version=4).cells
        for i, cell in enumerate(cells):
            asks = re.search(r"(\w+)\.predict\(", cell.source) if cell.cell_type == "code" else None
            if not asks:
                continue
            for before in cells[asked:i]:
                code = [line.split("#")[0].rstrip() for line in before.source.splitlines()]
                last = next((line for line in reversed(code) if line), "")
                if before.cell_type == "code" and last == f"{asks[1]}.step()":
                    shown.append(f"{path.name} {before.id}")
            asked = i + 1
    assert shown == [], "a step's card shows a question's answer: " + ", ".join(shown)


def guess_cell_slips(cells: list) -> list[str]:
    """Where ``cells`` leave the course's one way of asking: a guess's stub (``# your
    guess``) in a cell of its own that shows nothing, and the reveal in the code cell right
    after it; a ``.predict(`` call judges a guess that stub assigned."""
    slips = []
    for i, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        if GUESS_STUB in cell.source:
            body = ast.parse(cell.source).body
            shows = PREDICT_CALL in cell.source or re.search(r"\bprint\(", cell.source)
            if shows or not isinstance(body[-1], (ast.Assign, ast.AnnAssign)):
                slips.append(f"{cell.id}: the guess's cell reveals (or shows) something")
        call = re.search(r"\.predict\((?:nodes=)?(\w+)[,)]|\bvalue=(\w+)[,)]", cell.source)
        if PREDICT_CALL not in cell.source:
            continue
        before = cells[i - 1] if i else None
        stub = before is not None and before.cell_type == "code" and GUESS_STUB in before.source
        guess = call and (call[1] or call[2])
        if not stub or not guess or not re.search(rf"^{guess}\s*=", before.source, re.M):
            slips.append(f"{cell.id}: a predict cell not right after its guess's own cell")
    return slips


def test_a_guess_has_its_own_cell_and_the_reveal_follows_it():
    """One convention for every question (lessons 02-03 and 12-26 had it; 04-06 guessed
    and predicted in one cell, and 10 in a cell with a pre-filled "edit me" guess, which
    "Run all" judged as if the learner had made it): the guess's cell, then the reveal."""
    slips = []
    for path in LESSONS:
        cells = nbformat.read(path, as_version=4).cells
        slips += [f"{path.name} {slip}" for slip in guess_cell_slips(cells)]
    assert slips == [], "; ".join(slips)


def test_the_guess_cell_rule_catches_the_old_forms():
    """The rule above fails on the forms lessons 04-06 and 10 had."""
    one_cell = nbformat.v4.new_code_cell(
        "my_step_2 = []  # your guess\n\nsession.predict(nodes=my_step_2)", id="a"
    )
    edit_me = nbformat.v4.new_code_cell(
        'session.step()\n\nmy_guess = ["B"]  # edit me\nsession.predict(nodes=my_guess)', id="b"
    )
    stub = nbformat.v4.new_code_cell("my_inbox = None  # your guess: a list", id="c")
    reveal = nbformat.v4.new_code_cell('s.predict(channel="inbox:D", value=my_inbox)', id="d")
    assert len(guess_cell_slips([one_cell])) == 2
    assert len(guess_cell_slips([edit_me])) == 1
    assert guess_cell_slips([stub, reveal]) == []


# What the verdict of each check on its lesson's stub must not say: the solution's key
# tokens (its code, the numbers or names asked). A stub's verdict says what is wrong and
# points to the idea; lesson 13.2's hint was "entrypoint.final(value=what is left,
# save=the total spent)", nearly the answer, and 12.3's said "resuming ran 3 nodes", the
# size of the set asked. Each pattern is a regex, searched in the message and the hint.
STUB_MUST_NOT_SAY = {
    "lesson01.check_chain": [r"add_node\(", r"add_edge\("],
    "lesson01.check_router": [r"add_conditional_edges\(", r"Literal\["],
    "lesson01.check_read_run": [r"\b3\b", "HELLO ADA"],
    "lesson02.check_predict_steps": [r"\bleft\b", r"\bmerge\b", r"\bslow\b"],
    "lesson02.check_old_value": [r"add_node\(", r"add_edge\("],
    "lesson02.check_total_after": [r"\b22\b", r"\b44\b"],
    "lesson03.check_fix_conflict": [r"operator\.add"],
    "lesson03.check_best_scores": [r"max\(", r"\{\*\*"],
    "lesson03.check_output_schema": [r"class \w+\(TypedDict"],
    "lesson04.check_router": [r"add_conditional_edges\("],
    "lesson04.check_fan_in": [r"add_edge\(\["],
    "lesson04.check_predicted_steps": [r"\b[345]\b"],
    "lesson05.check_fan_out": [r"Send\(['\"]work"],
    "lesson05.check_triage": [r"Command\(update=", r"goto="],
    "lesson05.check_call_subgraph": [r"word_counter\.invoke\("],
    "lesson06.check_tool_round_trip": [r"tool_calls=\["],
    "lesson06.check_keep_last": [r"RemoveMessage\(id="],
    "lesson06.check_should_summarize": [r"len\(state"],
    "lesson07.check_replay": [r"invoke\(None"],
    "lesson07.check_fix_city": [r"as_node=['\"]"],
    "lesson07.check_history": [r"\b[36]\b"],
    "lesson08.check_approval": [r"Command\(resume"],
    "lesson08.check_breakpoint": [r"interrupt_before=\[['\"]"],
    "lesson08.check_edit_at_breakpoint": [r"['\"]to['\"]: ['\"]ada@example"],
    "lesson09.check_report_runs": [r"return \["],
    "lesson09.check_no_overwrite": [r"return \{"],
    "lesson09.check_agent_stops": [r"END if"],
    "lesson10.check_relax": [r"min\("],
    "lesson10.check_superstep_count": [r"\b5\b"],
    "lesson10.check_component_vertex": [r"min\("],
    "lesson11.check_progress": [r"writer\(f"],
    "lesson11.check_modes": [
        r"\b[abcd]\b['\"]?\s*(:|→|->|=)\s*['\"]?(messages|custom|updates|values)"
    ],
    "lesson11.check_tokens_of": [r"\.content for"],
    "lesson12.check_retry_policy": [r"retry_on=RateLimited"],
    "lesson12.check_fallback": [r"goto=['\"]cached_price"],
    "lesson12.check_resume_prediction": [r"\b3\b", "compose", "publish", "summarize"],
    "lesson13.check_together": [r"lookup\(city\) for", r"second loop"],
    "lesson13.check_budget": [r"value=.*save="],
    "lesson13.check_reruns": [r"\b2\b", "ask_approval", r"\bbook\b"],
    "lesson14.check_profile": [r"store\.(put|get)\(", r"\(['\"]users['\"]"],
    "lesson14.check_allergies": [r"filter=", r"['\"]kind['\"]: ['\"]allergy"],
    "lesson14.check_time_travel": [r"\b[24]\b"],
    "lesson15.check_context": [r"runtime\.context", r"Runtime\["],
    "lesson15.check_stop_in_time": [r"<=?\s*[12]\b", r"remaining_steps\W*[<>=]", r"\b2\b"],
    "lesson15.check_cache_key": [r"state\[", r"text.{0,20}language|language.{0,20}text"],
    "lesson16.check_supervisor": [r"goto=END", r"\.name (not )?in", r"return Command\("],
    "lesson16.check_handoff": [r"AIMessage\(", r"state\[['\"]messages['\"]\]\[0\]", r"update="],
    "lesson16.check_step_counts": [r"\b[57]\b"],
    "lesson17.check_lost_at": [r"\b4\b", r"update\.change\(", r"not in"],
    "lesson17.check_fixed_app": [r"operator\.add", r"Annotated\["],
    "lesson17.check_last_writer": [r"\b[68]\b", r"update\.change\(", r"write_answer"],
    "lesson18.check_no_stall": [r"to_thread", r"run_in_executor"],
    "lesson18.check_in_order": [
        r"\[await fetch_report",
        r"['\"]reports['\"]: \[",
        r"\breturns? (its|the|a)\b[^.:]{0,30}\breport",
        r"update of reports",
    ],
    "lesson18.check_limit": [r"max_concurrency"],
    "lesson19.check_plan_rule": [r"\bin ready\b", r"> ?seen", r"any\("],
    "lesson19.check_alert_on_change": [r"\.get\(", r"!=", r"return \{\}", r"\bif quote\b"],
    "lesson19.check_woke": [r"\[step - 1\]", r"in before\[", r"> ?saw"],
    "lesson20.check_mail_once": [r"add_node\(", r"add_edge\(", r"\bnotify\b"],
    "lesson20.check_memory": [r"checkpointer\s*=\s*True", r"=True"],
    "lesson20.check_answer_all": [r"\.id\b", r"resume=\{", r"<= ?100", r"\bprice\b"],
    "lesson21.check_set_budget": [r"InjectedToolCallId", r"Command\(", r"tool_call_id="],
    "lesson21.check_tool_errors": [r"ToolInvocationError", r"\(ValueError", r"ToolException"],
    "lesson21.check_approve_once": [r"create_react_agent", r"\bSend\b", r"\bv2\b"],
    "lesson22.check_defaults": [r"default_factory", r"field\(", r"= ?1\b", r"= ?['\"]guest"],
    "lesson22.check_validator": [r"field_validator", r"\bconvert\b", r"step 2", r"ValueError"],
    "lesson22.check_poll_model": [r"Annotated", r"operator\.add", r"= ?\[\]", r"= ?0\b"],
    "lesson23.check_route_test": [r"\b10[01]\b", r"amount.{0,5}:\s*\d"],
    "lesson23.check_path_test": [r"\{2: \[", r"plan\.nodes", r"\bstep [234]\b", r"\[.refund.\]"],
    "lesson23.check_approval_test": [r"resume=", r"['\"]no['\"]", r"ledger.{0,6}==\s*\[\]"],
    "lesson24.check_sign": [r"model_copy", r"same id", r"\bid=", r"RemoveMessage"],
    "lesson24.check_keep_recent": [r"RemoveMessage", r"REMOVE_ALL", r"Overwrite", r"\[-n"],
    "lesson24.check_repair": [r"ToolMessage", r"tool_call_id", r"RemoveMessage", r"as_node"],
    "lesson25.check_router": [r"add_conditional_edges", r"path.?map", r"['\"]refund['\"]\s*:"],
    "lesson25.check_triage": [r"destinations", r"Command\[", r"Literal", r"__end__"],
    "lesson25.check_newsroom": [r"add_edge", r"\[['\"]research", r"review", r"['\"]again['\"]"],
    "lesson26.check_fan_out": [r"add_edge", r"\[['\"]find_facts", r"waiting edge", r"defer"],
    "lesson26.check_report": [r"\bSend\b", r"Annotated", r"operator\.add", r"reducer"],
    "lesson26.check_loop": [r"rounds\s*[<>]", r"add_conditional_edges", r">=", r"max_rounds\s*-"],
    "lesson27.check_consume": [r"\bmatch\b", r"\[-1\]", r"==\s*['\"]custom", r"\.append\("],
    "lesson27.check_text_of": [r"split\(", r"startswith", r"\+=", r"==\s*\(\)"],
    "lesson27.check_answer_all": [r"Command\(resume", r"\bwhile\b", r"interrupts\[", r"\.value\b"],
}
CHECK_CALL = re.compile(r"\b(lesson\d\d\.check_\w+)\(")


def test_every_check_has_its_stub_tokens():
    """Each check a lesson calls has its entry in ``STUB_MUST_NOT_SAY``, so a new
    exercise's stub verdict is held to it too."""
    called = {name for path in LESSONS for name in CHECK_CALL.findall(path.read_text())}
    assert called == set(STUB_MUST_NOT_SAY)


def stub_verdicts_giving_answers(notebook) -> list[str]:
    """The stub verdicts, in an executed ``notebook``, that say a solution's key token."""
    told = []
    for cell in notebook.cells:
        called = CHECK_CALL.search(cell.source) if cell.cell_type == "code" else None
        if not called:
            continue
        shown = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        said = shown.split(": ", 1)[-1]  # past the title ("13.2 · ..."), whose digits are no answer
        told += [
            f"{called[1]} says {pattern!r}: {said!r}"
            for pattern in STUB_MUST_NOT_SAY[called[1]]
            if re.search(pattern, said)
        ]
    return told


# Run first, hidden, in the lesson's kernel: any connection off this machine fails the
# lesson (the kernel's own sockets are on loopback).
OFFLINE = """\
import socket as _socket
_connect = _socket.socket.connect
def _offline_connect(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and not host.startswith(("127.", "::1", "localhost", "/")):
        raise OSError(f"a lesson tried to reach {address}: lessons run offline")
    return _connect(self, address)
_socket.socket.connect = _offline_connect
"""


TEMPORARY_CELL_FILE = r"/ipykernel_\S+:\d+: (Graphkit|LangGraph)\w*Warning"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_runs_top_to_bottom(path, tmp_path):
    copy = tmp_path / path.name  # run alone in a folder: no file beside it is needed
    copy.write_bytes(path.read_bytes())
    notebook = nbformat.read(copy, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(OFFLINE, id="offline-guard"))
    NotebookClient(notebook, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [
        output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
    ]
    assert not [o for o in outputs if o.output_type == "error"]
    # (graphkit's warnings once named the temporary file IPython compiles a cell to)
    assert not [o for o in outputs if re.search(TEMPORARY_CELL_FILE, o.get("text", ""))]
    kinds = {kind for o in outputs for kind in o.get("data", {})}
    assert {"text/html", "image/svg+xml"} <= kinds  # cards/tables and the drawn graph
    if "Debugger(" in path.read_text(encoding="utf-8"):
        assert WIDGET in kinds  # the Debugger shows
    if path in LESSONS:
        html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
        assert "gk-verdict" in html, "the exercises' checks show their verdicts"
        assert stub_verdicts_giving_answers(notebook) == []


def test_lesson_08_run_all_leaves_the_debugger_paused_for_the_learner(tmp_path):
    """With Run All, no cell may answer the interrupt: the learner must still see the
    pause and the answer box (before, the cell after the widget resumed it at once)."""
    path = FOLDER / "08-human-in-the-loop.ipynb"
    notebook = nbformat.read(path, as_version=4)
    shown = next(i for i, cell in enumerate(notebook.cells) if "Debugger(app" in cell.source)
    code_after = "\n".join(
        cell.source for cell in notebook.cells[shown:] if cell.cell_type == "code"
    )
    assert "resume.click()" not in code_after and "answer.value =" not in code_after
    probe = "print('debugger:', debugger.session.status, debugger.answer.layout.display)"
    notebook.cells.append(nbformat.v4.new_code_cell(probe, id="probe"))
    NotebookClient(notebook, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "".join(o.get("text", "") for o in notebook.cells[-1].outputs)
    assert printed == "debugger: interrupted None\n", printed  # the answer box shows
    told = "".join(cell.source for cell in notebook.cells[shown:] if cell.cell_type == "markdown")
    assert "press **Resume**" in told
