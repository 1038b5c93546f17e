"""``graphkit progress``: which exercises a learner passed, read from the lessons as they
were saved (the verdicts' markers and the cells' execution counts), running nothing."""

from __future__ import annotations

import copy
import doctest
import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from IPython.core.formatters import DisplayFormatter
from nbclient import NotebookClient

from graphkit.__main__ import main
from graphkit.course import Verdict, gradebook, lesson01
from graphkit.course.gradebook import lesson_exercises, progress
from graphkit.course.lessons import lesson_paths
from graphkit.course.progress_report import progress_csv, progress_text
from graphkit.course.solutions import lesson01 as solution
from tests.course.cells import run_cells

LESSON01 = next(path for path in lesson_paths() if path.name.startswith("01-"))


def wrong_router():
    """1.2's answer with its routes swapped: hot days get a coat."""
    from graphkit import END, START, StateGraph

    builder = StateGraph(solution.Weather)
    builder.add_node("measure", solution.measure)
    builder.add_node("hot", solution.hot)
    builder.add_node("cold", solution.cold)
    builder.add_edge(START, "measure")
    builder.add_conditional_edges("measure", lambda s: "cold" if s["temperature"] >= 25 else "hot")
    builder.add_edge("hot", END)
    builder.add_edge("cold", END)
    return builder


def shown(verdict: Verdict, count: int) -> dict:
    """The output a kernel saves for a cell whose last line is ``verdict``: the bundle
    IPython's formatter builds, as ipykernel publishes it and nbformat writes it."""
    data, metadata = DisplayFormatter().format(verdict)
    return {
        "output_type": "execute_result",
        "data": data,
        "metadata": metadata,
        "execution_count": count,
    }


def lesson01_copy(folder: Path, outputs: dict[str, tuple[Verdict, int]], counts=None) -> Path:
    """A copy of lesson 01 in ``folder`` as saved after running some cells: each check
    cell named in ``outputs`` (by its id) shows that verdict at that execution count;
    ``counts`` gives other cells' execution counts (by id)."""
    notebook = json.loads(LESSON01.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["id"] in outputs:
            verdict, count = outputs[cell["id"]]
            cell["outputs"], cell["execution_count"] = [shown(verdict, count)], count
        elif cell["id"] in (counts or {}):
            cell["execution_count"] = counts[cell["id"]]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LESSON01.name
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def statuses(report) -> list[tuple[str, str, str]]:
    return [(row.exercise[:3], row.status, row.message) for row in report.exercises]


# the cells of lesson 01's exercises: the answer (stub) cells and the check cells
CHAIN, CHECK_CHAIN = "l01-c31", "l01-c32"
ROUTER, CHECK_ROUTER = "l01-c34", "l01-c35"
CHECK_READ_RUN = "l01-c40"


def test_the_exercises_of_a_lesson_are_its_checks_in_order():
    assert lesson_exercises("02") == [
        "2.1 · Predict the steps",
        "2.2 · See the old value",
        "2.3 · What does the reducer hold?",
    ]
    assert sum(len(lesson_exercises(f"{n:02d}")) for n in range(1, 28)) == 81


def test_the_gradebooks_examples_run():
    assert doctest.testmod(gradebook).failed == 0


def test_a_lesson_run_in_a_real_kernel_reads_as_it_ran(tmp_path):
    """Lesson 01 run top to bottom by nbclient, 1.1 answered right (the solution's
    build_chain), 1.2 left as its stub (which fails), 1.3's check cell never run."""
    notebook = nbformat.read(LESSON01, as_version=4)
    answer = nbformat.v4.new_code_cell(
        "from graphkit.course.solutions.lesson01 import build_chain", id="answer"
    )
    place = next(i for i, cell in enumerate(notebook.cells) if cell.id == CHECK_CHAIN)
    notebook.cells.insert(place, answer)
    notebook.cells = [cell for cell in notebook.cells if cell.id != CHECK_READ_RUN]
    resources = {"metadata": {"path": str(tmp_path)}}
    NotebookClient(notebook, timeout=120, resources=resources).execute()
    path = tmp_path / LESSON01.name
    nbformat.write(notebook, path)

    names = {"display": print}
    run_cells(LESSON01, until="lesson01.check_router", names=names)
    stub = lesson01.check_router(names["build_router"])
    assert not stub.passed
    assert statuses(progress(path)) == [
        ("1.1", "passed", lesson01.check_chain(solution.build_chain).message),
        ("1.2", "not yet", stub.message.partition("\n")[0]),
        ("1.3", "not tried", ""),
    ]

    # the learner runs 1.2's stub cell again after its check: that verdict is stale
    saved = json.loads(path.read_text(encoding="utf-8"))
    check = next(cell for cell in saved["cells"] if cell.get("id") == CHECK_ROUTER)
    stub_cell = next(cell for cell in saved["cells"] if cell.get("id") == ROUTER)
    stub_cell["execution_count"] = check["execution_count"] + 5
    path.write_text(json.dumps(saved), encoding="utf-8")
    row = progress(path).exercises[1]
    assert (row.status, row.note) == (
        "stale",
        f"showed not yet, but In [{check['execution_count'] + 5}] above it ran after "
        f"the check's In [{check['execution_count']}] (or before a restart)",
    )


def test_each_outcome_and_the_total(tmp_path):
    passed = lesson01.check_chain(solution.build_chain)
    failed = lesson01.check_router(wrong_router)
    broken = Verdict("1.3 · Read a run", False, "The check itself raised.", check_error=KeyError())
    assert passed and not failed
    path = lesson01_copy(
        tmp_path,
        {CHECK_CHAIN: (passed, 3), CHECK_ROUTER: (failed, 5), CHECK_READ_RUN: (broken, 7)},
    )
    report = progress(tmp_path)
    assert statuses(report) == [
        ("1.1", "passed", passed.message.partition("\n")[0]),
        ("1.2", "not yet", failed.message.partition("\n")[0]),
        ("1.3", "check failed", "The check itself raised."),
    ]
    assert report.exercises[0].notebook == path
    assert progress_text(report).splitlines()[-1] == (
        "  1 of 3 exercises passed (1 not yet, 1 check failed)"
    )


def test_the_text_table_is_exact(tmp_path):
    verdicts = {
        CHECK_CHAIN: (Verdict("1.1 · A three-node chain", True, "Right."), 3),
        CHECK_ROUTER: (Verdict("1.2 · Route by temperature", False, "Hot \x1b[2J.\nMore"), 5),
    }
    lesson01_copy(tmp_path / "ada", verdicts, counts={ROUTER: 8})
    shutil.copy(LESSON01, tmp_path / "ada" / "01-again.ipynb")  # (saved without outputs)
    assert progress_text(progress(tmp_path / "ada")) == (
        f"{tmp_path / 'ada'}\n"
        "  01-first-graph.ipynb\n"
        "    1.1 · A three-node chain    passed\n"
        "    1.2 · Route by temperature  stale: showed not yet, but In [8] above it ran "
        "after the check's In [5] (or before a restart)\n"
        "    1.3 · Read a run            not tried\n"
        "  lesson 01: not tried (saved without outputs)\n"
        "  1 of 6 exercises passed (1 stale, 4 not tried)"
    )


def test_a_terminal_s_width_folds_a_row_under_its_status(tmp_path):
    """At 80 columns the stale row's reason (why to run the check again) went past the
    edge; it folds at spaces, each line after the first under the status column."""
    verdicts = {CHECK_ROUTER: (Verdict("1.2 · Route by temperature", False, "Hot."), 5)}
    lesson01_copy(tmp_path / "ada", verdicts, counts={ROUTER: 8})
    lines = progress_text(progress(tmp_path / "ada"), width=80).splitlines()
    assert lines[3:6] == [
        "    1.2 · Route by temperature  stale: showed not yet, but In [8] above it ran",
        "                                after the check's In [5] (or before a restart)",
        "    1.3 · Read a run            not tried",
    ]
    assert max(map(len, lines[1:])) <= 80


def test_the_verdict_shown_last_counts(tmp_path):
    """A learner who copied the check cell and ran it again: the verdict with the
    highest execution count is the one that counts, wherever its cell is."""
    right = lesson01.check_chain(solution.build_chain)
    wrong = lesson01.check_chain(lambda: solution.build_router())
    assert right and not wrong
    for first, second, expected in [(right, wrong, "not yet"), (wrong, right, "passed")]:
        # (checked in the order they ran, as a kernel would)
        first = replace(first, checked="2026-12-01T10:00:00+00:00")
        second = replace(second, checked="2026-12-01T10:05:00+00:00")
        path = lesson01_copy(tmp_path, {CHECK_CHAIN: (first, 4)})
        notebook = json.loads(path.read_text(encoding="utf-8"))
        again = copy.deepcopy(next(c for c in notebook["cells"] if c["id"] == CHECK_CHAIN))
        again.update(id="again", execution_count=9, outputs=[shown(second, 9)])
        notebook["cells"].insert(2, again)  # (above everything: order is not time)
        path.write_text(json.dumps(notebook), encoding="utf-8")
        assert progress(path).exercises[0].status == expected


def test_only_the_exercises_own_cells_make_a_verdict_stale(tmp_path):
    """1.2's verdict is stale when 1.2's answer cell ran after it, not when 1.1's did
    (1.1's check cell is between them), nor when a cell below it did."""
    verdicts = {
        CHECK_CHAIN: (lesson01.check_chain(solution.build_chain), 3),
        CHECK_ROUTER: (lesson01.check_router(solution.build_router), 5),
    }
    for counts, expected in [
        ({CHAIN: 12}, ["stale", "passed"]),  # (1.1's answer, after its check In [3])
        ({ROUTER: 12}, ["passed", "stale"]),
        ({CHECK_READ_RUN: 12, "l01-c39": 13}, ["passed", "passed"]),
        ({ROUTER: 4}, ["passed", "passed"]),  # (before its check)
    ]:
        report = progress(lesson01_copy(tmp_path, verdicts, counts))
        assert [row.status for row in report.exercises[:2]] == expected, counts


def test_after_a_restart_the_verdict_checked_last_counts(tmp_path):
    """Execution counts start again at 1 after a kernel restart: a check run in a new
    session (In [6], in a copied check cell) came after one of the old session's
    (In [20]); the time the check ran says so, the count does not."""
    right = replace(lesson01.check_chain(solution.build_chain), checked="2026-12-01T10:00:00+00:00")
    wrong = lesson01.check_chain(lambda: solution.build_router())
    wrong = replace(wrong, checked="2026-12-01T11:30:00.5+00:00")
    path = lesson01_copy(tmp_path, {CHECK_CHAIN: (right, 20)}, counts={CHAIN: 5})
    notebook = json.loads(path.read_text(encoding="utf-8"))
    place = next(i for i, cell in enumerate(notebook["cells"]) if cell["id"] == CHECK_CHAIN)
    again = copy.deepcopy(notebook["cells"][place])
    again.update(id="again", execution_count=6, outputs=[shown(wrong, 6)])
    notebook["cells"].insert(place + 1, again)
    path.write_text(json.dumps(notebook), encoding="utf-8")
    # (In [20] of the old check cell above is no answer: re-running a check changes none)
    assert statuses(progress(path))[0] == ("1.1", "not yet", wrong.message.partition("\n")[0])
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            output["metadata"].get("graphkit", {}).get("verdict", {}).pop("checked", None)
    path.write_text(json.dumps(notebook), encoding="utf-8")  # (a graphkit before "checked")
    assert progress(path).exercises[0].status == "passed"


def test_cells_above_the_exercises_heading_do_not_make_it_stale(tmp_path):
    """The lesson's own cells (a demo above the exercises, the cell importing the
    checks) ran again after 1.1's check: its answer did not change. A copied check of
    1.1 between its answer and its check is passed over, not a boundary."""
    verdicts = {CHECK_CHAIN: (lesson01.check_chain(solution.build_chain), 20)}
    for counts, expected in [
        ({"l01-c09": 28, "l01-c29": 31}, "passed"),
        ({CHAIN: 30}, "stale"),
    ]:
        path = lesson01_copy(tmp_path, verdicts, counts)
        notebook = json.loads(path.read_text(encoding="utf-8"))
        place = next(i for i, cell in enumerate(notebook["cells"]) if cell["id"] == CHAIN)
        check = nbformat.v4.new_code_cell("lesson01.check_chain(build_chain)", id="mine")
        notebook["cells"].insert(place + 1, dict(check, execution_count=25))
        path.write_text(json.dumps(notebook), encoding="utf-8")
        assert progress(path).exercises[0].status == expected, counts


def test_a_check_cell_that_raised_is_noted(tmp_path):
    """After a restart the learner ran only 1.3's check cell: NameError, and the
    verdict it showed before is gone. Not tried, and the teacher sees why."""
    path = lesson01_copy(tmp_path, {CHECK_CHAIN: (lesson01.check_chain(solution.build_chain), 3)})
    notebook = json.loads(path.read_text(encoding="utf-8"))
    check = next(cell for cell in notebook["cells"] if cell["id"] == CHECK_READ_RUN)
    check["execution_count"] = 1
    check["outputs"] = [
        nbformat.v4.new_output("error", ename="NameError", evalue="name 'lesson01' is not defined")
    ]
    path.write_text(json.dumps(notebook), encoding="utf-8")
    row = progress(path).exercises[2]
    assert (row.status, row.note) == ("not tried", "its check cell shows NameError")
    assert progress_text(progress(path)).splitlines()[4] == (
        "    1.3 · Read a run            not tried: its check cell shows NameError"
    )


def test_a_verdict_of_no_exercise_of_the_lesson_is_passed_over(tmp_path):
    own = Verdict("9.9 · My own exercise", True, "Yes.")
    report = progress(lesson01_copy(tmp_path, {CHECK_CHAIN: (own, 3)}))
    assert [row.status for row in report.exercises] == ["not tried"] * 3
    assert report.exercises[0].note == ""  # (it has outputs: no verdict of 1.1 in them)


def test_the_lesson_is_known_by_its_checks_not_by_its_name(tmp_path):
    path = lesson01_copy(tmp_path, {})
    renamed = path.rename(tmp_path / "my work.ipynb")
    assert [row.lesson for row in progress(renamed).exercises] == ["01"] * 3


def test_csv_has_a_row_per_exercise(tmp_path):
    passed = Verdict("1.1 · A three-node chain", True, 'Ran "a", b.')
    lesson01_copy(tmp_path / "ada", {CHECK_CHAIN: (passed, 2)})
    lesson01_copy(tmp_path / "bob", {})
    reports = [progress(tmp_path / "ada"), progress(tmp_path / "bob")]
    ada, bob = tmp_path / "ada", tmp_path / "bob"
    none = "saved without outputs"
    assert progress_csv(reports).splitlines() == [
        "path,notebook,lesson,exercise,status,message,note",
        f'{ada},01-first-graph.ipynb,01,1.1 · A three-node chain,passed,"Ran ""a"", b.",',
        f"{ada},01-first-graph.ipynb,01,1.2 · Route by temperature,not tried,,",
        f"{ada},01-first-graph.ipynb,01,1.3 · Read a run,not tried,,",
        f"{bob},01-first-graph.ipynb,01,1.1 · A three-node chain,not tried,,{none}",
        f"{bob},01-first-graph.ipynb,01,1.2 · Route by temperature,not tried,,{none}",
        f"{bob},01-first-graph.ipynb,01,1.3 · Read a run,not tried,,{none}",
    ]


# -- what is not a lesson ---------------------------------------------------------------


def test_a_path_that_does_not_exist(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no such file or folder: .*nowhere"):
        progress(tmp_path / "nowhere")


def test_a_file_that_is_no_notebook(tmp_path):
    (tmp_path / "notes.txt").write_text("my notes")
    (tmp_path / "broken.ipynb").write_text('{"cells": ')
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    with pytest.raises(ValueError, match=r"notes.txt is not a notebook: Expecting value"):
        progress(tmp_path / "notes.txt")
    with pytest.raises(ValueError, match=r"broken.ipynb is not a notebook"):
        progress(tmp_path / "broken.ipynb")
    with pytest.raises(ValueError, match=r"list.ipynb is not a notebook: it has no list of cells"):
        progress(tmp_path / "list.ipynb")


def test_a_notebook_of_another_course(tmp_path):
    other = nbformat.v4.new_notebook()
    other.cells = [nbformat.v4.new_code_cell("from mycourse import checks\nchecks.one(x)")]
    nbformat.write(other, tmp_path / "01-intro.ipynb")
    with pytest.raises(ValueError, match=r"01-intro.ipynb is not a lesson of graphkit's course"):
        progress(tmp_path / "01-intro.ipynb")
    report = progress(tmp_path)  # (a folder: passed over, and the folder has no lessons)
    assert report.exercises == () and report.notes[0].startswith("no lessons of graphkit")


def test_a_folder_with_no_lessons_says_so_and_where_they_may_be(tmp_path):
    assert progress(tmp_path).notes == (
        f"no lessons of graphkit's course in {tmp_path} (a lesson is a notebook whose cells "
        "import its checks, as the copies graphkit lessons makes do)",
    )
    lesson01_copy(tmp_path / "ada", {})
    lesson01_copy(tmp_path / "bob", {})
    assert progress(tmp_path).notes == (
        f"no lessons in {tmp_path} itself; its folders ada, bob hold some: give them, "
        f"e.g. graphkit progress {tmp_path}/*",
    )


def test_what_is_no_notebook_file_is_said_plainly_and_never_waited_on(tmp_path):
    """A named pipe is never opened (reading one waits for a writer forever); a folder,
    a symbolic link to nowhere or round in a loop, and a notebook of format 3 say so."""
    lesson01_copy(tmp_path, {})
    os.mkfifo(tmp_path / "pipe.ipynb")
    (tmp_path / "folder.ipynb").mkdir()
    (tmp_path / "loop.ipynb").symlink_to("loop.ipynb")
    (tmp_path / "gone.ipynb").symlink_to(tmp_path / "nowhere.ipynb")
    old = nbformat.v3.new_notebook(worksheets=[nbformat.v3.new_worksheet()])
    (tmp_path / "v3.ipynb").write_text(nbformat.writes(old, version=3), encoding="utf-8")
    report = progress(tmp_path)
    assert len(report.exercises) == 3
    assert report.notes == (
        f"{tmp_path / 'folder.ipynb'} is not a notebook: it is a folder",
        f"{tmp_path / 'gone.ipynb'} is not a notebook: it is a link to nowhere",
        f"{tmp_path / 'loop.ipynb'} is not a notebook: it is a link to nowhere",
        f"{tmp_path / 'pipe.ipynb'} is not a notebook: it is no file",
        f"{tmp_path / 'v3.ipynb'} is a notebook of format 3: open it in Jupyter and save "
        "it to bring it to format 4",
    )
    with pytest.raises(ValueError, match=r"pipe.ipynb is not a notebook: it is no file"):
        progress(tmp_path / "pipe.ipynb")
    with pytest.raises(ValueError, match=r"loop.ipynb is not a notebook: it is a link to nowhere"):
        progress(tmp_path / "loop.ipynb")


def test_csv_cells_a_spreadsheet_would_run_as_formulas_are_quoted(tmp_path):
    """A message is the learner's to write (a saved notebook is a file they can edit),
    and so is a notebook's name: a cell that starts like a formula is kept as text."""
    planted = Verdict("1.1 · A three-node chain", True, '=HYPERLINK("http://x","see")')
    lesson01_copy(tmp_path, {CHECK_CHAIN: (planted, 2)}).rename(tmp_path / "@risk.ipynb")
    rows = progress_csv([progress(tmp_path)]).splitlines()
    assert rows[1] == (
        f"{tmp_path},'@risk.ipynb,01,1.1 · A three-node chain,passed,"
        '"\'=HYPERLINK(""http://x"",""see"")",'
    )


def test_a_broken_notebook_in_a_folder_is_noted_and_the_rest_read(tmp_path):
    lesson01_copy(tmp_path, {})
    (tmp_path / "02-supersteps.ipynb").write_text("")
    report = progress(tmp_path)
    assert len(report.exercises) == 3
    assert report.notes == (
        f"{tmp_path / '02-supersteps.ipynb'} is not a notebook: Expecting value: line 1 "
        "column 1 (char 0)",
    )


# -- the command -------------------------------------------------------------------------


def test_the_command_prints_a_block_per_folder(tmp_path, capsys):
    passed = lesson01.check_chain(solution.build_chain)
    lesson01_copy(tmp_path / "ada", {CHECK_CHAIN: (passed, 2)})
    lesson01_copy(tmp_path / "bob", {})
    assert main(["progress", str(tmp_path / "ada"), str(tmp_path / "bob")]) == 0
    out = capsys.readouterr().out
    ada, bob = out.split("\n\n")
    assert ada.splitlines()[0] == str(tmp_path / "ada")
    assert ada.splitlines()[-1] == "  1 of 3 exercises passed (2 not tried)"
    assert bob == (
        f"{tmp_path / 'bob'}\n"
        "  lesson 01: not tried (saved without outputs)\n"
        "  0 of 3 exercises passed (3 not tried)\n"
    )
    assert main(["progress", "--csv", str(tmp_path / "ada")]) == 0
    assert capsys.readouterr().out == progress_csv([progress(tmp_path / "ada")])


def test_with_csv_a_folder_without_lessons_is_said_on_stderr(tmp_path, capsys):
    """The CSV has no row for it: a teacher's spreadsheet would miss a learner silently."""
    lesson01_copy(tmp_path / "ada", {})
    (tmp_path / "cy").mkdir()
    assert main(["progress", "--csv", str(tmp_path / "ada"), str(tmp_path / "cy")]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 4  # (the header, ada's three exercises)
    assert captured.err == (
        f"graphkit: no lessons of graphkit's course in {tmp_path / 'cy'} (a lesson is a "
        "notebook whose cells import its checks, as the copies graphkit lessons makes do)\n"
    )


def test_the_command_says_what_is_wrong_with_a_path_in_one_line(tmp_path, capsys):
    lesson01_copy(tmp_path / "ada", {})
    (tmp_path / "notes.ipynb").write_text("not json")
    paths = [tmp_path / "ada", tmp_path / "nowhere", tmp_path / "notes.ipynb"]
    code = main(["progress", *map(str, paths)])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out.startswith(f"{tmp_path / 'ada'}\n")  # (the paths it could read)
    assert captured.err.splitlines() == [
        f"graphkit: no such file or folder: {tmp_path / 'nowhere'}",
        f"graphkit: {tmp_path / 'notes.ipynb'} is not a notebook: Expecting value: line 1 "
        "column 1 (char 0)",
    ]
    assert "Traceback" not in captured.err
