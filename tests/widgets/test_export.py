"""The standalone HTML export: one file, no URL to load, data that parses, text escaped."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from graphkit.widgets import DebugSession
from graphkit.widgets.export import export_data
from tests.widgets.graphs import HOSTILE, chain_app, failing_app, hostile_app

INPUT = {"n": 1, "log": []}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.data: dict[str, str] = {}
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        self._in = attributes.get("id") if tag == "script" else None

    def handle_data(self, data):
        if self._in:
            self.data[self._in] = self.data.get(self._in, "") + data


def parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    return parser


def test_export_is_one_offline_file(tmp_path):
    session = DebugSession(chain_app(), INPUT)
    session.run()
    path = tmp_path / "run.html"
    session.export_html(path)
    page = path.read_text(encoding="utf-8")
    assert not re.search(r"https?://", page)  # nothing to load, not even a namespace
    page_parsed = parse(page)
    scripts = [attrs for tag, attrs in page_parsed.tags if tag == "script"]
    assert all("src" not in attrs for attrs in scripts)
    assert not [attrs for tag, attrs in page_parsed.tags if tag in ("link", "img", "iframe")]
    data = json.loads(page_parsed.data["gk-data"])
    assert [(f["step"], f["phase"]) for f in data["frames"][:4]] == [
        ("input step", "after Plan"),
        ("input step", "after Execute"),
        ("input step", "after Update"),
        ("step 0", "after Plan"),
    ]
    assert len(data["frames"]) == 3 * 5
    assert data["frames"][-1]["status"].startswith("done")
    last = data["frames"][-1]  # its state panel shows the state, as every frame's does
    assert (
        last["run_status"] == "done" and last["state"].startswith("<") and last["state"] != "done"
    )
    assert data["svg"].startswith("<svg")


def test_frames_carry_the_classes_highlight_gives():
    session = DebugSession(chain_app(), INPUT)
    session.run()
    frames = export_data(session)["frames"]
    plan_a, execute_a = frames[6], frames[7]  # step 1, where a runs
    assert plan_a["step"] == "step 1"
    assert plan_a["classes"]["node-a"] == "node gk-node gk-node-node planned"
    assert execute_a["classes"]["node-a"] == "node gk-node gk-node-node planned wrote pending"
    assert "<td>a</td>" in execute_a["tables"]["writes"]


def test_hostile_names_and_values_stay_text():
    session = DebugSession(hostile_app(), {"text": "x"})
    session.run()
    page = session.to_html()
    data_text = parse(page).data["gk-data"]
    assert "</script" not in data_text.lower() and "<!--" not in data_text
    assert page.lower().count("</script") == 2  # the data's and the code's own
    data = json.loads(data_text)
    writes = data["frames"][-2]["tables"]["writes"]  # the hostile node's Execute
    assert "<script>" not in writes and "&lt;script&gt;" in writes
    assert "中文 👋" in writes
    assert HOSTILE not in data_text  # raw, it would hold a tag; escaped, it is text


def test_a_failed_run_exports_its_error():
    session = DebugSession(failing_app(), INPUT)
    session.run()
    data = export_data(session)
    assert data["frames"][-1]["status"].startswith("error in node 'broken' at step 2")
    assert data["frames"][-1]["classes"]["node-broken"].endswith("error")


def test_an_empty_session_exports_a_page_that_says_so():
    session = DebugSession(chain_app(), INPUT)
    assert export_data(session)["frames"] == []
    assert "nothing recorded" in session.to_html()


def test_exporting_a_session_before_running_it_says_to_run_it_first(tmp_path):
    """A teacher who exports a fresh session for the lecture got a page of no frames and
    "not started: nothing was recorded", with no word of what to do."""
    session = DebugSession(chain_app(), INPUT)
    assert repr(session.export_html(tmp_path / "run.html")) == (
        "Exported run.html: 0 frames; the run is unfinished:\n"
        "  not started: nothing was recorded; run it first (session.run(), or the Run "
        "button of a Debugger), then export it."
    )
    session.run()
    assert repr(session.export_html(tmp_path / "run.html")).endswith("the run is done.")


def _page_tags() -> list[tuple[str, dict]]:
    from graphkit.widgets.export import session_html

    session = DebugSession(chain_app(), INPUT)
    session.run()
    return parse(session_html(session)).tags


def test_every_control_of_the_page_has_a_name_a_screen_reader_says():
    # (axe: the slider was a form field without a label, "slider, 0" to a screen reader)
    tags = _page_tags()
    slider = next(attrs for tag, attrs in tags if attrs.get("class") == "gk-slider")
    assert slider.get("aria-label") == "step and phase"
    graph = next(attrs for tag, attrs in tags if attrs.get("class") == "gk-graph")
    assert graph.get("role") == "img" and graph.get("aria-label"), graph  # (the script names it)
    assert [tag for tag, _ in tags].count("main") == 1  # the page's one landmark
    live = {attrs.get("class"): attrs for _, attrs in tags}
    assert live["gk-labels"].get("aria-live") == "polite"  # Next's step is said aloud
    assert live["gk-status"].get("role") == "status"


def test_the_table_tabs_are_a_tablist_a_screen_reader_knows():
    # (they were plain buttons: nothing said which table was open)
    tags = _page_tags()
    tablist = [attrs for _, attrs in tags if attrs.get("role") == "tablist"]
    tabs = [attrs for _, attrs in tags if attrs.get("role") == "tab"]
    panel = [attrs for _, attrs in tags if attrs.get("role") == "tabpanel"]
    assert len(tablist) == 1 and tablist[0].get("aria-label") == "tables"
    assert [t["data-kind"] for t in tabs][:2] == ["tasks", "writes"]
    assert [t["aria-selected"] for t in tabs] == ["true"] + ["false"] * (len(tabs) - 1)
    assert [t["tabindex"] for t in tabs] == ["0"] + ["-1"] * (len(tabs) - 1)  # one Tab stop
    assert {t["aria-controls"] for t in tabs} == {panel[0]["id"]}
    assert panel[0]["aria-labelledby"] == tabs[0]["id"]


def test_exporting_to_a_folder_says_to_name_the_file_in_it(tmp_path):
    """Appendix A1 makes ``folder`` and exports to ``folder / "forecast-run.html"``; a
    learner who wrote ``export_html(folder)`` got Python's bare "[Errno 21] Is a
    directory"."""
    import pytest

    session = DebugSession(chain_app(), INPUT)
    session.run()
    with pytest.raises(IsADirectoryError) as caught:
        session.export_html(tmp_path)
    assert str(caught.value) == (
        f"export_html() writes one HTML file, and {str(tmp_path)!r} is a folder: name the "
        f"file in it, e.g. export_html(folder / 'run.html')."
    )
    with pytest.raises(FileNotFoundError) as caught:
        session.export_html(tmp_path / "no-such-folder" / "run.html")
    assert str(caught.value) == (
        f"export_html() cannot write {str(tmp_path / 'no-such-folder' / 'run.html')!r}: "
        f"there is no folder {str(tmp_path / 'no-such-folder')!r}. Make it first "
        "(Path(...).mkdir(parents=True)), or write the file into a folder that exists."
    )
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_exporting_to_a_path_with_a_tilde_writes_in_the_home_folder(tmp_path, monkeypatch):
    """review11: ``export_html("~/run.html")`` was told "there is no folder '~'", and
    ``export_html("~")`` wrote a file named "~" in the working folder; ``~`` is the
    home folder, as pandas' ``to_csv`` reads it."""
    import pytest

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "home").mkdir()
    session = DebugSession(chain_app(), INPUT)
    session.run()
    exported = session.export_html("~/run.html")
    assert exported.path == tmp_path / "home" / "run.html" and exported.path.is_file()
    with pytest.raises(IsADirectoryError, match=r"^export_html\(\) writes one HTML file, and '"):
        session.export_html("~")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["home"]
