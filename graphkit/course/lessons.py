"""Where the lessons are, and how a learner gets a copy of them to work in.

The lessons ship inside the package (``graphkit/lessons``, which in a source checkout
is the repository's ``notebooks/`` folder), so every ``pip install graphkit``
brings them. ``copy_lessons`` puts them in a folder the learner owns; ``run_lessons``
executes them there in a real kernel, as CI does.

>>> lessons_folder().name, lesson_paths()[0].name[:3]
('lessons', '01-')
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

from graphkit.extras import require

__all__ = ["copy_lessons", "export_tour", "lesson_paths", "lessons_folder", "run_lessons"]

LESSON_NAME = re.compile(r"^(\d\d|A\d)-[a-z0-9-]+\.ipynb$")  # lessons, then appendices


def lessons_folder() -> Path:
    """The folder holding the lesson notebooks of this installation."""
    return Path(__file__).resolve().parent.parent / "lessons"


def lesson_paths() -> list[Path]:
    """The lesson notebooks (``NN-name.ipynb``), in course order, then the appendices
    (``A1-name.ipynb``)."""
    folder = lessons_folder()
    if not folder.is_dir():
        raise FileNotFoundError(
            f"No lessons at {folder}: this installation of graphkit was built without them. "
            "Reinstall graphkit: every install carries them."
        )
    return sorted(path for path in folder.iterdir() if LESSON_NAME.match(path.name))


def copy_lessons(
    destination: str | Path, *, solutions: bool = False, overwrite: bool = False
) -> list[Path]:
    """Copy the lessons into ``destination`` (created if missing) and return the copies.

    With ``solutions=True`` the solution modules go into ``destination/solutions`` too
    (a teacher hands out lessons without them). An existing lesson file is kept unless
    ``overwrite`` is true, so a learner's work is never replaced by accident.
    """
    target = Path(destination)
    if target.exists() and not target.is_dir():  # (mkdir said only "File exists")
        raise NotADirectoryError(
            f"{target} is a file, not a folder: give copy_lessons a folder to copy the "
            "lessons into (it is made if missing)."
        )
    target.mkdir(parents=True, exist_ok=True)
    sources = lesson_paths()
    kept = [target / path.name for path in sources if (target / path.name).exists()]
    if kept and not overwrite:
        names = ", ".join(path.name for path in kept)
        raise FileExistsError(
            f"{target} already holds {names}; your edits there would be lost. Choose "
            "another folder, or pass overwrite=True (graphkit lessons DIR --force)."
        )
    copies = [Path(shutil.copy(path, target / path.name)) for path in sources]
    if solutions:
        folder = Path(__file__).resolve().parent / "solutions"
        (target / "solutions").mkdir(exist_ok=True)
        for path in sorted(folder.glob("lesson*.py")):
            copies.append(Path(shutil.copy(path, target / "solutions" / path.name)))
    return copies


def run_lessons(folder: str | Path, timeout: int = 300) -> list[tuple[Path, float]]:
    """Execute every lesson (and appendix) in ``folder`` top to bottom in a real kernel, saving the
    outputs into the files; return each lesson with the seconds it took. A lesson that
    raises stops the run with the error (``nbclient``'s ``CellExecutionError``)."""
    feature = "running the lessons (graphkit lessons --run)"
    nbformat = require("nbformat", extra="notebook", feature=feature)
    NotebookClient = require("nbclient", extra="notebook", feature=feature).NotebookClient
    require("ipykernel", extra="notebook", feature=feature)  # the kernel the lessons run in

    timings = []
    for path in sorted(p for p in Path(folder).iterdir() if LESSON_NAME.match(p.name)):
        notebook = nbformat.read(path, as_version=4)
        started = time.perf_counter()
        client = NotebookClient(
            notebook, timeout=timeout, resources={"metadata": {"path": str(path.parent)}}
        )
        # The kernel's own stderr is start-up chatter (transport warnings); a failing
        # cell still raises CellExecutionError with its traceback.
        client.execute(stderr=subprocess.DEVNULL)
        timings.append((path, time.perf_counter() - started))
        nbformat.write(notebook, path)
    return timings


def export_tour(path: str | Path) -> Path:
    """Write a standalone HTML page (no kernel, no network) of a debugging session: the
    forecast graph of the lessons, run to its end. Returns the path written."""
    from graphkit.inspect.examples import forecast_graph
    from graphkit.widgets import DebugSession

    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    session.run()
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    session.export_html(target)
    return target
