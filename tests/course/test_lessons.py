"""The lessons travel with the package: ``graphkit lessons DIR`` copies them."""

from __future__ import annotations

import pytest

from graphkit.__main__ import main
from graphkit.course.lessons import copy_lessons, lesson_paths, lessons_folder


def test_the_package_carries_the_lessons():
    names = [path.name for path in lesson_paths()]
    assert len([name for name in names if name[:2].isdigit()]) == 27
    assert lessons_folder().name == "lessons"


def test_copy_without_solutions_by_default(tmp_path):
    copies = copy_lessons(tmp_path / "course")
    assert [path.name for path in copies] == [path.name for path in lesson_paths()]
    assert not (tmp_path / "course" / "solutions").exists()


def test_copy_with_solutions(tmp_path):
    copy_lessons(tmp_path, solutions=True)
    solutions = sorted(path.name for path in (tmp_path / "solutions").iterdir())
    assert solutions == [f"lesson{n:02d}.py" for n in range(1, 28)]


def test_copy_never_overwrites_a_learners_work_unless_asked(tmp_path):
    copy_lessons(tmp_path)
    first = lesson_paths()[0].name
    (tmp_path / first).write_text("my notes")
    with pytest.raises(FileExistsError, match="your edits there would be lost"):
        copy_lessons(tmp_path)
    assert (tmp_path / first).read_text() == "my notes"
    copy_lessons(tmp_path, overwrite=True)
    assert (tmp_path / first).read_text() != "my notes"


def test_copy_into_a_file_says_it_is_a_file(tmp_path):
    # mkdir said "[Errno 17] File exists: '.../notes.txt'", as if the folder were taken
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    with pytest.raises(NotADirectoryError) as caught:
        copy_lessons(notes)
    assert str(caught.value) == (
        f"{notes} is a file, not a folder: give copy_lessons a folder to copy the lessons "
        "into (it is made if missing)."
    )
    assert notes.read_text() == "mine"


def test_the_command_copies_and_says_where(tmp_path, capsys):
    assert main(["lessons", str(tmp_path / "c")]) == 0
    out = capsys.readouterr().out
    assert f"copied {(tmp_path / 'c' / lesson_paths()[0].name).resolve()}" in out
    assert f"jupyter lab {tmp_path / 'c'}" in out
    with pytest.raises(SystemExit, match="--force"):
        main(["lessons", str(tmp_path / "c")])


def test_after_a_run_the_command_sends_the_learner_to_fresh_copies(tmp_path, capsys, monkeypatch):
    """``make course`` ended with "open them with: jupyter lab build/course", the copies
    whose saved outputs answer every guess; README and docs/course.md say to work in
    fresh copies and keep the run ones to look things up."""
    import graphkit.course.lessons as lessons

    monkeypatch.setattr(lessons, "run_lessons", lambda folder: [])
    monkeypatch.setattr(lessons, "export_tour", lambda path: path)
    monkeypatch.chdir(_venv_bin(tmp_path, "graphkit", "jupyter").parents[1])
    monkeypatch.setattr("sys.argv", [".venv/bin/graphkit", "lessons"])
    assert main(["lessons", str(tmp_path / "c"), "--run"]) == 0
    out = capsys.readouterr().out
    assert "open them with" not in out
    assert f"the copies in {tmp_path / 'c'} show every output, the answers included:" in out
    assert out.endswith(
        "keep them to look things up. To work through the lessons, copy fresh ones:\n"
        "  .venv/bin/graphkit lessons ~/graphkit-course"
        " && .venv/bin/jupyter lab ~/graphkit-course\n"
    )


def _venv_bin(root, *programs):
    """``root/.venv/bin`` holding an executable file for each of ``programs``."""
    folder = root / ".venv" / "bin"
    folder.mkdir(parents=True)
    for program in programs:
        (folder / program).write_text("#!/bin/sh\n")
        (folder / program).chmod(0o755)
    return folder


@pytest.mark.parametrize(
    ("programs", "on_path", "said"),
    [
        (("graphkit", "jupyter"), True, "  graphkit lessons {fresh} && jupyter lab {fresh}"),
        (("graphkit",), False, "  {bin}/graphkit lessons {fresh} && jupyter lab {fresh}"),
    ],
    ids=["called by its name", "no jupyter beside it"],
)
def test_after_a_run_the_command_names_programs_as_they_can_be_typed(
    tmp_path, capsys, monkeypatch, programs, on_path, said
):
    """A console script's sys.argv[0] is its full path even when typed by name: the
    message said /…/bin/graphkit and /…/bin/jupyter, and named a jupyter beside graphkit
    where there was none (graphkit installed alone, e.g. with pipx)."""
    import graphkit.course.lessons as lessons

    monkeypatch.setattr(lessons, "run_lessons", lambda folder: [])
    monkeypatch.setattr(lessons, "export_tour", lambda path: path)
    folder = _venv_bin(tmp_path, *programs)
    monkeypatch.setenv("PATH", str(folder) if on_path else "")
    monkeypatch.setattr("sys.argv", [str(folder / "graphkit"), "lessons"])
    assert main(["lessons", str(tmp_path / "c"), "--run"]) == 0
    fresh = "~/graphkit-course"
    assert capsys.readouterr().out.endswith(said.format(fresh=fresh, bin=folder) + "\n")


def test_run_lessons_executes_each_and_saves_its_outputs(tmp_path):
    import nbformat

    from graphkit.course.lessons import run_lessons

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("21 * 2")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, tmp_path / "01-tiny.ipynb")
    nbformat.write(notebook, tmp_path / "notes.ipynb")  # not a lesson: left alone
    [(path, seconds)] = run_lessons(tmp_path)
    assert path.name == "01-tiny.ipynb" and seconds > 0
    ran = nbformat.read(path, as_version=4)
    assert ran.cells[0].outputs[0]["data"]["text/plain"] == "42"


def test_export_tour_writes_a_standalone_page(tmp_path):
    from graphkit.course.lessons import export_tour

    page = export_tour(tmp_path / "tour.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
    assert "summarize" in page and "http://" not in page.replace("http://www.w3.org", "")
