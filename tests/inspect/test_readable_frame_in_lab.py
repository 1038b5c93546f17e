"""The readable tables as a learner sees them: in JupyterLab 4, in headless Chromium, a
whole ``changes`` table beside the file browser on a 1280-pixel screen."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from scripts.read_in_lab import CHROMIUM, read_notebook

pytestmark = pytest.mark.browser

SETUP = """\
from langchain_core.messages import AIMessage, HumanMessage
from graphkit import START, StateGraph
from graphkit.prebuilt import MessagesState


def reply(state: MessagesState) -> dict:
    said = state["messages"][-1].content
    return {"messages": [AIMessage(f"You said {said!r}; here is a long answer about it.")]}


builder = StateGraph(MessagesState)
builder.add_node("reply", reply)
builder.add_edge(START, "reply")
QUESTION = "What about reducers, and how do they fold the writes of one step together?"
run = builder.compile().trace({"messages": [HumanMessage(QUESTION)]})
"""

# Each table's cells, by column name: text, the width it is shown at, how it wraps.
LOOK = """() => [...document.querySelectorAll('.gk-readable table')].map(table => {
  const names = [...table.querySelectorAll('thead tr:first-child th')].map(th => th.innerText);
  const row = table.querySelector('tbody tr');
  const cells = [...row.querySelectorAll('td')];
  const offset = names.length - cells.length;
  const shown = {};
  cells.forEach((td, i) => {
    const style = getComputedStyle(td);
    shown[names[i + offset].replace(/\\s/g, '')] = {
      text: td.innerText, width: td.getBoundingClientRect().width,
      whiteSpace: style.whiteSpace, align: style.textAlign,
    };
  });
  const box = table.closest('.jp-OutputArea-output');
  return {shown, fits: table.getBoundingClientRect().width <= box.clientWidth + 1};
})"""


def test_a_readable_table_reads_well_in_jupyterlab(tmp_path):
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        pytest.fail("Debian's chromium is missing: run `make system`")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_code_cell('run.to_frame("changes", readable=True)'),
        nbformat.v4.new_code_cell('run.to_frame("writes", readable=True)'),
    ]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    path = tmp_path / "tables.ipynb"
    nbformat.write(notebook, path)
    seen: list = []

    errors = read_notebook(
        path, tmp_path / "shots", look=lambda page: seen.extend(page.evaluate(LOOK))
    )
    assert errors == []
    changes, writes = seen
    assert changes["fits"], "the whole changes table fits beside the file browser"
    after = changes["shown"]["after"]
    assert after["text"].endswith("…") and "..." not in after["text"]  # cut once, by show
    assert after["align"] == "left" and after["whiteSpace"] == "normal"
    assert changes["shown"]["step"]["whiteSpace"] == "nowrap"
    assert after["width"] > 2 * changes["shown"]["step"]["width"]
    value, task_id = writes["shown"]["value"], writes["shown"]["task_id"]
    assert task_id["whiteSpace"] == "nowrap" and value["width"] > 3 * task_id["width"]
