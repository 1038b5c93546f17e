"""The course notebooks run top to bottom in a real kernel (nbclient)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
WIDGET_NOTEBOOKS = {"02-debugger.ipynb"}


def test_the_debugger_notebook_is_there():
    assert {path.name for path in NOTEBOOKS} >= WIDGET_NOTEBOOKS


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ should hold the course notebooks"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_runs_and_shows_rich_output(path):
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook, timeout=120, resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    outputs = [
        output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
    ]
    assert not [o for o in outputs if o.output_type == "error"]
    kinds = {kind for o in outputs for kind in o.get("data", {})}
    assert {"text/html", "image/svg+xml"} <= kinds  # cards/tables and the drawn graph
    if path.name in WIDGET_NOTEBOOKS:
        assert "application/vnd.jupyter.widget-view+json" in kinds  # the Debugger shows
