"""A GraphkitWarning points at the user's line (their compile/invoke), never into
graphkit's own files: a learner reading the warning sees where *their* call was."""

from __future__ import annotations

import warnings
from typing import TypedDict

from graphkit import START, Send, StateGraph


class State(TypedDict):
    text: str


def _caught(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return caught


def test_a_compile_warning_points_at_the_compile_call():
    builder = StateGraph(State)
    builder.add_node("text", lambda s: {})  # same name as a state key: a warning
    builder.add_edge(START, "text")
    [warning] = _caught(builder.compile)
    assert warning.filename == __file__, warning.filename
    assert "same name as a state key" in str(warning.message)


def test_a_runtime_warning_points_at_the_invoke_call():
    builder = StateGraph(State)
    builder.add_node("fan", lambda s: {})
    builder.add_node("work", lambda s: {})
    builder.add_edge(START, "fan")
    builder.add_conditional_edges("fan", lambda s: [Send("nope", {})], ["work"])
    app = builder.compile()
    caught = _caught(lambda: app.invoke({"text": "t"}))
    assert [w.filename for w in caught] == [__file__], [str(w.message) for w in caught]
    assert "a Send targets 'nope'" in str(caught[0].message)


def test_a_config_type_warning_points_at_the_users_add_node_and_add_conditional_edges():
    """(This module's annotations are strings: ``dict`` here is the string 'dict'.)"""

    def respond(state: State, config: dict) -> dict:
        return {}

    def route(state: State, config: dict) -> str:
        return "respond"

    builder = StateGraph(State)
    builder.add_node("first", lambda s: {})
    caught = _caught(lambda: builder.add_node("respond", respond))
    caught += _caught(lambda: builder.add_conditional_edges("first", route, ["respond"]))
    assert [w.filename for w in caught] == [__file__, __file__]
    assert ["`config` parameter is typed dict;" in str(w.message) for w in caught] == [True, True]


def test_in_a_notebook_a_warning_names_the_cell_not_its_temporary_file(monkeypatch):
    """Lesson 25 showed ``/tmp/ipykernel_31768/3402467673.py:14: GraphkitWarning: ...``:
    IPython compiles a cell to a temporary file. The warning names the cell as a
    traceback does, ``Cell In[7]``, with the line in it."""
    import sys
    from types import SimpleNamespace

    cells = {__file__: ("Cell", "In[7]")}  # this file stands for a cell's temporary one
    shell = SimpleNamespace(compile=SimpleNamespace(format_code_name=cells.get))
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: shell))
    builder = StateGraph(State)
    builder.add_node("text", lambda s: {})
    builder.add_edge(START, "text")
    [in_a_cell] = _caught(builder.compile)
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: None))
    [in_a_file] = _caught(builder.compile)  # a plain Python session: the file, as before
    assert (in_a_cell.filename, in_a_file.filename) == ("Cell In[7]", __file__)
    assert in_a_cell.lineno == in_a_file.lineno  # the line of the call, in the cell
    assert "same name as a state key" in str(in_a_cell.message)
    shown = warnings.formatwarning(
        in_a_cell.message, in_a_cell.category, in_a_cell.filename, in_a_cell.lineno
    )
    assert shown.startswith(f"Cell In[7]:{in_a_cell.lineno}: GraphkitWarning: Node 'text'")
    # the line of code below it, as for a file (it went missing when the cell was named)
    assert shown.endswith(".\n  action()\n"), shown  # (the call in _caught)


def test_in_a_real_kernel_the_warning_names_the_cell_and_shows_its_line(tmp_path):
    """What a learner reads under a cell: the cell's name and the line that warned, once
    for a loop that warns at that line again; ``simplefilter("error")`` still raises it."""
    import nbformat
    from nbclient import NotebookClient

    define = (
        "import warnings\nfrom typing import TypedDict\nfrom graphkit import START, StateGraph\n"
        "class State(TypedDict):\n    text: str\ndef build():\n    builder = StateGraph(State)\n"
        "    builder.add_node('text', lambda s: {})\n    return builder.add_edge(START, 'text')"
    )
    warns = "for _ in range(3):\n    app = build().compile()"
    raises = (
        "with warnings.catch_warnings():\n    warnings.simplefilter('error')\n    try:\n"
        "        build().compile()\n    except Warning as error:\n"
        "        print('raised', type(error).__name__)"
    )
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in (define, warns, raises)]
    )
    NotebookClient(notebook, timeout=60, resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = ["".join(o.get("text", "") for o in cell.outputs) for cell in notebook.cells]
    assert shown[1] == (
        "Cell In[2]:2: GraphkitWarning: Node 'text' has the same name as a state key; updates "
        "and the drawn graph are easy to misread. Consider renaming the node.\n"
        "  app = build().compile()\n"
    )
    assert shown[2] == "raised GraphkitWarning\n"
