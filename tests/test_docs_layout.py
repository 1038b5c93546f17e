"""The lesson pages fit their content: in a common window nothing of a lesson's outputs is
cut where the reader cannot scroll to it, and the debugger's tabs stay one row of whole
labels (at a phone's width, as many rows as their whole labels need). How the site
makes the room: docs/about-these-docs.md."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphkit.widgets.tabs import TABLES
from tests.widgets.colours import CONTRASTS, KNOB

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def offline_page(width: int, scheme: str = "light") -> Iterator[Any]:
    """A page of headless Chromium ``width`` px wide that may fetch only the local site,
    the reader's system in the ``scheme`` ("light" or "dark") the site follows."""
    from playwright.sync_api import sync_playwright

    from scripts.read_in_lab import CHROMIUM, CHROMIUM_ARGS, LOCAL

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
            page.route(
                "**/*", lambda r: r.continue_() if r.request.url.startswith(LOCAL) else r.abort()
            )
            yield page
        finally:
            browser.close()


# The debugger tour, the lesson with the widest readable table (a changes table with its
# values and reducers, about 900 px), and the one with the widest table of all (lesson 11's
# chunks beside their step, phase and records, about 1,100 px: at 800 px it scrolls in its
# own box, at 1280 its cells wrap).
LAYOUT_LESSONS = ["A1-debugger-tour", "03-state-channels-reducers", "11-streaming"]

# Every element of a lesson's outputs whose right edge passes its nearest box that does not
# show overflow (or, with none, the page's content column) where that box does not scroll
# sideways: what a reader sees cut and cannot reach. An inline element ends where its last
# line box does (a wrapped one's box spans the whole width).
CUT = """() => {
  const column = document.querySelector('.md-content__inner');
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const cut = [];  // {el, said}, outermost first
  for (const el of document.querySelectorAll('.jp-OutputArea-output, .jp-OutputArea-output *')) {
    const rects = [...el.getClientRects()].filter(r => r.width > 0 && r.height > 0);
    if (!rects.length) continue;
    const right = Math.max(...rects.map(r => r.right));
    let box = el.parentElement;
    while (box !== column && getComputedStyle(box).overflowX === 'visible') box = box.parentElement;
    const edge = box === column
      ? column.getBoundingClientRect().right
      : box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
    if (right > edge + 1 && !(box !== column && scrolls(box))) {
      if (cut.some(outer => outer.el.contains(el))) continue;  // said for its container
      const name = `${el.tagName.toLowerCase()}.${String(el.className).split(' ').join('.')}`;
      const text = (el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 30);
      cut.push({el, said: `${name} "${text}" ends at ${Math.round(right)} px, ` +
        `its box ${box.tagName.toLowerCase()}.${String(box.className).split(' ')[0]} ` +
        `at ${Math.round(edge)} px (overflow-x ${getComputedStyle(box).overflowX})`});
    }
  }
  const said = cut.map(c => c.said);
  // and the rule as said: an output wider than its area scrolls sideways
  for (const area of document.querySelectorAll('.jp-OutputArea-output')) {
    if (area.scrollWidth > area.clientWidth + 1 && !scrolls(area)) {
      said.push(`an output area ${area.scrollWidth} px wide in ${area.clientWidth} px ` +
        `does not scroll (overflow-x ${getComputedStyle(area).overflowX})`);
    }
  }
  return said;
}"""

# Open every folded block: a predict question's saved output is folded on the site.
OPEN_FOLDS = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"

# The debugger's tabs: each one's top and whether its label shows whole.
TABS = """() => [...document.querySelectorAll('.gk-debugger .gk-tables .lm-TabBar-tab')].map(
  tab => {
    const label = tab.querySelector('.lm-TabBar-tabLabel');
    return {label: label.textContent, top: Math.round(tab.getBoundingClientRect().top),
            whole: label.scrollWidth <= label.clientWidth};
  })"""


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 800])
@pytest.mark.parametrize("lesson", LAYOUT_LESSONS)
def test_lesson_outputs_fit_or_scroll(site_url, lesson, width, tmp_path):
    """At 1280 px (the lesson's contents beside it) and 800 px (the phone-like layout), no
    output of the lesson is cut where it cannot be scrolled to, and a debugger's tabs are
    one row with every label whole (a page PNG lands in ``tmp_path``)."""
    with offline_page(width) as page:
        page.goto(f"{site_url}/lessons/{lesson}/")
        if page.locator(".gk-debugger").count():
            page.locator(".gk-debugger").first.wait_for(state="visible", timeout=30_000)
        page.evaluate("() => document.fonts.ready.then(() => true)")  # widths with fonts
        page.evaluate(OPEN_FOLDS)  # the outputs a fold hides fit too, once opened
        cut, tabs = page.evaluate(CUT), page.evaluate(TABS)
        page.screenshot(path=str(tmp_path / f"{lesson}-{width}.png"), full_page=True)
    assert cut == [], f"lessons/{lesson} at {width} px: cut where it cannot scroll: {cut}"
    if lesson == "A1-debugger-tour":
        assert len(tabs) == 7, tabs
        assert len({tab["top"] for tab in tabs}) == 1, f"the debugger's tabs wrap: {tabs}"
        assert all(tab["whole"] for tab in tabs), f"a tab's label is cut: {tabs}"


# Each copy button (Material's on a Markdown page, mkdocs-jupyter's on a lesson's cell) and
# the first character of its code block that shows under it: a character shows where it
# lies inside the box that clips the code (the block's scroll box, without its border).
COVERED = """() => {
  const covered = [];
  for (const button of document.querySelectorAll('.md-code__nav, .zeroclipboard-container')) {
    const b = button.getBoundingClientRect();
    const pre = button.closest('pre') ||
      button.closest('.jp-InputArea-editor')?.querySelector('pre');
    if (!b.width || !pre) continue;
    let clips = pre.querySelector('code') || pre;
    while (clips !== pre.parentElement && getComputedStyle(clips).overflowX === 'visible') {
      clips = clips.parentElement;
    }
    const left = clips.getBoundingClientRect().left + clips.clientLeft;
    const right = left + clips.clientWidth;
    const text = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    let hit = null;
    while (!hit && text.nextNode()) {
      const node = text.currentNode;
      for (let i = 0; i < node.length && !hit; i++) {
        if (!node.data[i].trim()) continue;
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const c = range.getBoundingClientRect();
        if (c.left < left || c.right > right) continue;  // scrolled out of sight
        if (c.right > b.left && c.left < b.right && c.bottom > b.top && c.top < b.bottom) {
          hit = `"${node.data[i]}" of ${JSON.stringify(pre.textContent.split('\\n')[0])}`;
        }
      }
    }
    if (hit) covered.push(hit);
  }
  return covered;
}"""

# Pages whose code has lines that reach the copy button: a lesson (07's cells run to 88
# characters) and Markdown pages whose first lines are long outputs and commands.
COPY_PAGES = ["lessons/07-checkpoints-time-travel/", "getting-started/", "concepts/", "store/"]


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 800])
def test_copy_buttons_cover_no_code(site_url, width, tmp_path):
    """A code block's copy button sits in a column of its own: at 1280 and 800 px no
    character of code shows under one (a first line that ran to the block's edge lost
    its end under the button). A PNG of each page's top lands in tmp_path."""
    covered = {}
    with offline_page(width) as page:
        for path in COPY_PAGES:
            page.goto(f"{site_url}/{path}", wait_until="networkidle")
            page.evaluate("() => document.fonts.ready.then(() => true)")
            if found := page.evaluate(COVERED):
                covered[path] = found
            name = path.strip("/").replace("/", "-")
            page.screenshot(path=str(tmp_path / f"{name}-{width}.png"))
    assert covered == {}, f"at {width} px a copy button covers code: {covered}"


# Each printed line (a text output) that the page shows split inside a word: two characters
# side by side in the text, neither a space, on two different rows of the page.
SPLIT_WORDS = """() => {
  const split = [];
  const range = document.createRange();
  for (const pre of document.querySelectorAll('.jp-RenderedText pre')) {
    const text = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    while (text.nextNode()) {
      const node = text.currentNode;
      let top = null;
      for (let i = 0; i < node.length; i++) {
        if (node.data[i] === '\\n') { top = null; continue; }
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const row = range.getBoundingClientRect().top;
        if (top !== null && row > top + 1 && /\\S\\S/.test(node.data.slice(i - 1, i + 1))) {
          const line = node.data.slice(0, i).split('\\n').pop();
          split.push(`"${line.slice(-20)}|${node.data.slice(i, i + 12)}"`);
        }
        top = row;
      }
    }
  }
  return split;
}"""


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 390])
def test_printed_outputs_split_no_word(site_url, width):
    """A printed output is never broken inside a word: at 1280 px a line too long for its
    box wraps at a space (JupyterLab's break-all split lesson 16's ``recursion_limit``); at
    a phone's width the lines stay whole and scroll, as code does (``print(run)``'s
    columns read "trigge / red by"). Lesson 16 prints both, folded answers included."""
    with offline_page(width) as page:
        page.goto(f"{site_url}/lessons/16-supervisor-and-handoffs/")
        page.evaluate("() => document.fonts.ready.then(() => true)")
        page.evaluate(OPEN_FOLDS)
        split = page.evaluate(SPLIT_WORDS)
    assert split == [], f"lessons/16 at {width} px: printed words split across rows: {split}"


# Each of the debugger's tabs on a page: its label, whether the label shows whole, and
# whether the tab lies inside the page's width and its bar's box (reachable: the bar does
# not scroll). The lesson's widget (a Tab) and the exported page (its own buttons).
TABS_IN_VIEW = """() => {
  const tabs = [...document.querySelectorAll(
    '.gk-debugger .gk-tables .lm-TabBar-tab, .gk-tabs .gk-tab')];
  const width = document.documentElement.clientWidth;
  return tabs.map(tab => {
    const label = tab.querySelector('.lm-TabBar-tabLabel') || tab;
    const r = tab.getBoundingClientRect();
    const bar = tab.closest('.lm-TabBar, .gk-tabs').getBoundingClientRect();
    return {label: label.textContent.trim(), whole: label.scrollWidth <= label.clientWidth,
            inside: r.left >= Math.max(0, bar.left) - 1 &&
                    r.right <= Math.min(width, bar.right) + 1};
  });
}"""


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("path", ["lessons/A1-debugger-tour/", "debugger/export.html"])
def test_debugger_tabs_are_all_reachable_at_phone_width(site_url, path, tmp_path):
    """At 390 px every tab of the debugger shows its whole label inside the page and its
    bar, and choosing the last one shows its table: the Tab's bar shrank each tab to
    about 45 px ("tasl", "writ", "cha"), and it does not scroll. A PNG lands in tmp_path."""
    with offline_page(390) as page:
        page.goto(f"{site_url}/{path}")
        tabs = page.locator(".gk-debugger .gk-tables .lm-TabBar-tab, .gk-tabs .gk-tab")
        tabs.first.wait_for(state="visible", timeout=30_000)
        page.evaluate("() => document.fonts.ready.then(() => true)")
        found = page.evaluate(TABS_IN_VIEW)
        tabs.last.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / f"{path.strip('/').replace('/', '-')}-390.png"))
        tabs.last.click()  # (Playwright refuses a click on a tab something covers)
        chosen = tabs.last.get_attribute("class") or ""
    assert [tab["label"] for tab in found] == list(TABLES), found
    assert [t for t in found if not (t["whole"] and t["inside"])] == [], found
    assert "lm-mod-current" in chosen or "active" in chosen, chosen


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("lesson", ["A1-debugger-tour", "08-human-in-the-loop"])
def test_debugger_reads_in_the_dark_scheme(site_url, lesson, tmp_path):
    """In the site's dark scheme ("slate") every text of a saved debugger has at least
    WCAG's 4.5:1 contrast against what it is painted on: the widget manager's colours,
    light, stayed on its labels (the status line, "step", "break at", "why" read 1.3:1,
    black on slate) and its select boxes were white blocks. The slider's knob was a white
    dot (the widgets' CSS paints it #fff): it is a slate grey, 3:1 at least on its track
    and on the page (WCAG 1.4.11, a control). A PNG lands in tmp_path."""
    with offline_page(1280, scheme="dark") as page:
        page.goto(f"{site_url}/lessons/{lesson}/")
        debugger = page.locator(".gk-debugger").first
        debugger.wait_for(state="visible", timeout=30_000)
        scheme = page.evaluate("() => document.body.dataset.mdColorScheme")
        texts = page.evaluate(CONTRASTS, ".gk-debugger")
        knob = page.evaluate(KNOB, ".gk-debugger")
        debugger.screenshot(path=str(tmp_path / f"{lesson}-dark.png"))
    assert scheme == "slate"
    shown = {t["text"] for t in texts}
    for label in ["step", "break at", "why"]:
        assert label in shown, f"no {label!r} label on lessons/{lesson}: {sorted(shown)}"
    assert any(t["text"].startswith("step ") for t in texts), "no status line"
    assert any(t["tag"] == "SELECT" for t in texts), "no select box"
    low = [t for t in texts if t["ratio"] < 4.5]
    assert low == [], f"lessons/{lesson} in the dark scheme: texts under 4.5:1: {low}"
    glaring = [t for t in texts if t["tag"] in ("SELECT", "INPUT") and t["behind"] > 0.2]
    assert glaring == [], f"lessons/{lesson}: light boxes on the dark page: {glaring}"
    assert knob["knobLuminance"] < 0.8, f"lessons/{lesson}: a white knob: {knob}"
    assert knob["onTrack"] >= 3 and knob["onPage"] >= 3, f"lessons/{lesson}: {knob}"


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("lesson", ["A1-debugger-tour", "08-human-in-the-loop"])
def test_debugger_reads_in_the_light_scheme(site_url, lesson, tmp_path):
    """In the site's light scheme every text of a saved debugger has at least 4.5:1: the
    unselected tabs' labels ("tasks", "writes", ...) were the widgets' grey, black at 54%
    on the bar's #eeeeee, 4.43:1. The slider's knob, white with a #d9d9d9 rim on the white
    page (1.0:1, the rim 1.41:1), shows at 3:1 at least on the page and the track, by the
    site's stylesheet alone too (every widget slider of the lessons, not only the
    debugger's). A PNG lands in tmp_path."""
    with offline_page(1280, scheme="light") as page:
        page.goto(f"{site_url}/lessons/{lesson}/")
        debugger = page.locator(".gk-debugger").first
        debugger.wait_for(state="visible", timeout=30_000)
        page.mouse.move(0, 0)  # (hovered, the knob takes the accent colour)
        scheme = page.evaluate("() => document.body.dataset.mdColorScheme")
        texts = page.evaluate(CONTRASTS, ".gk-debugger")
        knobs = [page.evaluate(KNOB, ".gk-debugger")]
        debugger.screenshot(path=str(tmp_path / f"{lesson}-light.png"))
        page.evaluate(WITHOUT_DEBUGGER_CSS)
        knobs.append(page.evaluate(KNOB, ".gk-debugger"))
    assert scheme == "default"
    tabs = [t for t in texts if "lm-TabBar-tabLabel" in t["cls"]]
    assert [t["text"] for t in tabs] == list(TABLES), tabs
    low = [t for t in texts if t["ratio"] < 4.5]
    assert low == [], f"lessons/{lesson} in the light scheme: texts under 4.5:1: {low}"
    for knob in knobs:
        assert max(knob["onPage"], knob["rimOnPage"]) >= 3, f"lessons/{lesson}: {knob}"
        assert max(knob["onTrack"], knob["rimOnTrack"]) >= 3, f"lessons/{lesson}: {knob}"


# The debugger's own stylesheets switched off, to see the site's alone (docs/stylesheets).
WITHOUT_DEBUGGER_CSS = """() => {
  for (const style of document.querySelectorAll('.gk-debugger style')) style.disabled = true;
}"""


# Every lesson of the course, as the site names its pages.
LESSONS = sorted(path.stem for path in ROOT.joinpath("notebooks").glob("*.ipynb"))

# Each code span of a table the page shows split inside a word: two word characters side
# by side in its text, on two rows of the page (a break at a space or a hyphen is a
# line's end; one between "er" and "rors" is not).
TABLE_CODE_SPLIT = """() => {
  const split = [];
  const range = document.createRange();
  for (const code of document.querySelectorAll('.md-typeset table :is(td, th) code')) {
    const text = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    while (text.nextNode()) {
      const node = text.currentNode;
      let top = null;
      for (let i = 0; i < node.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const row = range.getBoundingClientRect().top;
        if (top !== null && row > top + 1 && /\\w\\w/.test(node.data.slice(i - 1, i + 1))) {
          split.push(`${node.data.slice(0, i)}|${node.data.slice(i)}`);
        }
        top = row;
      }
    }
  }
  return split;
}"""

# How far the page scrolls sideways: what is wider than a phone scrolls in its own box.
PAGE_OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.mark.docs
@pytest.mark.browser
def test_every_lesson_page_fits_a_phone(site_url, tmp_path):
    """At 390 px no lesson's page scrolls sideways, its folded answers opened (code, an
    output, a table scroll in their own box), and no code span of a table is split inside
    a word: Material breaks code anywhere, and a table's heading read "handle_tool_er /
    rors" (lesson 21) and 'config["config / urable"]' (lesson 15); the rule that keeps a
    cell's code whole held for a body cell only. A PNG of each page's top lands in
    tmp_path."""
    found = {}
    with offline_page(390) as page:
        for lesson in LESSONS:
            page.goto(f"{site_url}/lessons/{lesson}/")
            if page.locator(".gk-debugger").count():
                page.locator(".gk-debugger").first.wait_for(state="visible", timeout=30_000)
            page.evaluate("() => document.fonts.ready.then(() => true)")
            page.evaluate(OPEN_FOLDS)
            overflow, split = page.evaluate(PAGE_OVERFLOW), page.evaluate(TABLE_CODE_SPLIT)
            if overflow > 0 or split:
                found[lesson] = {"page scrolls sideways by px": overflow, "split": split}
            page.screenshot(path=str(tmp_path / f"{lesson}-390.png"))
    assert len(LESSONS) >= 28, LESSONS  # (27 lessons and the debugger tour)
    assert found == {}, f"at 390 px: {found}"


# Each text of the page's content under ``px`` pixels as drawn: its font size times every
# CSS zoom above it (a lesson's side-by-side drawings are zoomed out as a whole).
TINY_TEXT = """(px) => {
  const tiny = [];
  for (const el of document.querySelectorAll('.md-content *')) {
    const own = [...el.childNodes].find(n => n.nodeType === 3 && n.data.trim());
    if (!own || el.closest('svg') || !el.getClientRects().length) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    for (let e = el; e; e = e.parentElement) size *= parseFloat(getComputedStyle(e).zoom) || 1;
    if (size < px) tiny.push(`${el.tagName} "${own.data.trim()}" ${size.toFixed(1)} px`);
  }
  return tiny;
}"""


@pytest.mark.docs
@pytest.mark.browser
def test_no_lesson_text_is_drawn_tiny(site_url):
    """No text of a lesson page, its folds opened, is drawn under 10 px (the smallest the
    site sets is 10.9 px, code in a table): lesson 25's side-by-side drawings were zoomed
    out with their names, "no_map", "path_map_list", read at 8.2 px."""
    found = {}
    with offline_page(1280) as page:
        for lesson in LESSONS:
            page.goto(f"{site_url}/lessons/{lesson}/")
            page.evaluate(OPEN_FOLDS)
            if tiny := page.evaluate(TINY_TEXT, 10):
                found[lesson] = tiny
    assert found == {}, f"text under 10 px: {found}"


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_code_colours_read_in_both_schemes(site_url, scheme):
    """Every token of a lesson's code cells (lesson 21's hold every kind the lessons
    colour) and every lesson name of the course page's table has 4.5:1 at least on its
    background: the cells' comments read 3.5:1 in the dark scheme (4.2:1 in the light),
    their operators 3.4:1, and the course page's names, a link's blue on code's grey, 4.2:1
    in the dark."""
    low = {}
    with offline_page(1280, scheme) as page:
        for path, root in [
            ("lessons/21-tools-in-depth/", ".jp-InputArea-editor"),
            ("course/", ".gk-lesson-table a"),
        ]:
            page.goto(f"{site_url}/{path}")
            texts = page.evaluate(CONTRASTS, root)
            assert texts, f"no {root} on {path}"
            if under := sorted({(t["cls"], t["ratio"]) for t in texts if t["ratio"] < 4.5}):
                low[path] = under
    assert low == {}, f"in the {scheme} scheme, under 4.5:1 (class, ratio): {low}"


# The course page's table of lessons: each column's width, by its heading.
LESSON_TABLE_COLUMNS = """() => Object.fromEntries(
  [...document.querySelectorAll('.gk-lesson-table thead th')].map(
    th => [th.textContent.trim().split(' ')[0], Math.round(th.getBoundingClientRect().width)]))"""


@pytest.mark.docs
@pytest.mark.browser
def test_the_course_tables_lessons_read_in_lines_not_columns(site_url, tmp_path):
    """At 1280 px what each lesson covers takes more than half the course page's table:
    Material's 100 px for every heading gave "#", "exercises" and "learner time" 300 of its
    748 px, and the covers column ran about 30 characters a line. A PNG lands in
    tmp_path."""
    with offline_page(1280) as page:
        page.goto(f"{site_url}/course/")
        widths = page.evaluate(LESSON_TABLE_COLUMNS)
        page.screenshot(path=str(tmp_path / "course-1280.png"), full_page=True)
    assert list(widths) == ["#", "lesson", "covers", "exercises", "learner"], widths
    assert widths["covers"] > sum(widths.values()) / 2, widths


# Each of a lesson's DataFrames: its width, its output area's, and whether a cell of it
# wraps (its text on more than one line).
DATAFRAMES = """() => [...document.querySelectorAll('.jp-OutputArea-output table.dataframe')]
  .map(table => {
    const range = document.createRange();
    const wraps = [...table.querySelectorAll('td')].some(td => {
      range.selectNodeContents(td);
      return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;
    });
    const head = table.querySelector('thead').textContent.replace(/\\s+/g, ' ').trim();
    return {table: Math.round(table.getBoundingClientRect().width), wraps,
            area: table.closest('.jp-OutputArea-output').clientWidth, head: head.slice(0, 40)};
  })"""


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize(
    "lesson", ["21-tools-in-depth", "03-state-channels-reducers", "11-streaming"]
)
def test_wide_dataframes_wrap_their_cells_in_a_wide_window(site_url, lesson, tmp_path):
    """At 1280 px a DataFrame wider than the lesson's output column wraps its cells at
    spaces and fits: lesson 21's outcomes table (error texts of 100 characters) was 1,270
    px in 894 and scrolled, lesson 03's changes table lost "EphemeralValue" at the edge.
    At 390 px a table keeps its lines and scrolls (squeezed, every cell would wrap). PNGs
    land in tmp_path."""
    found = {}
    for width in (1280, 390):
        with offline_page(width) as page:
            page.goto(f"{site_url}/lessons/{lesson}/")
            page.evaluate("() => document.fonts.ready.then(() => true)")
            page.evaluate(OPEN_FOLDS)
            found[width] = page.evaluate(DATAFRAMES)
            page.screenshot(path=str(tmp_path / f"{lesson}-{width}.png"), full_page=True)
    assert found[1280], f"no DataFrame on lessons/{lesson}"
    wide = [t for t in found[1280] if t["table"] > t["area"] + 1]
    assert wide == [], f"lessons/{lesson} at 1280 px: tables wider than their output: {wide}"
    assert any(t["wraps"] for t in found[1280]), f"lessons/{lesson}: no cell wraps {found}"
    squeezed = [t for t in found[390] if t["wraps"]]
    assert squeezed == [], f"lessons/{lesson} at 390 px: tables squeezed: {squeezed}"


# Each code block of a lesson's Markdown cells and of its code cells: its type size and
# line height, as drawn.
CODE_TYPE = """() => {
  const type = (pre) => {
    const style = getComputedStyle(pre);
    return `${style.fontSize}/${style.lineHeight}`;
  };
  return {
    markdown: [...document.querySelectorAll('.jp-RenderedMarkdown .highlight pre')].map(type),
    cells: [...new Set([...document.querySelectorAll('.jp-InputArea-editor pre')].map(type))],
  };
}"""


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("lesson", ["23-testing-a-graph", "09-debugging-recipes"])
def test_code_in_a_lessons_prose_has_the_code_cells_type(site_url, lesson):
    """A code block in a lesson's Markdown (lesson 23's pytest fixture, lesson 09's hint)
    is drawn in the code cells' type: it had the prose's 16 px and line height, larger
    than every code cell around it (13 px)."""
    with offline_page(1280) as page:
        page.goto(f"{site_url}/lessons/{lesson}/")
        page.evaluate(OPEN_FOLDS)
        found = page.evaluate(CODE_TYPE)
    assert found["markdown"], f"no code block in the Markdown of lessons/{lesson}"
    assert len(found["cells"]) == 1, found
    assert set(found["markdown"]) == set(found["cells"]), found


# Each code block of a Markdown page that scrolls sideways: how far, and its first line.
CODE_SCROLLS = """() => [...document.querySelectorAll('.md-content pre > code')]
  .filter(code => code.scrollWidth > code.clientWidth + 1)
  .map(code => `${code.scrollWidth - code.clientWidth} px: ${code.textContent.split('\\n')[0]}`)"""

# Each line of a Markdown page's code blocks that the page shows split inside a word.
CODE_SPLIT_WORDS = SPLIT_WORDS.replace(".jp-RenderedText pre", ".md-content pre > code")
assert CODE_SPLIT_WORDS != SPLIT_WORDS


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("path", ["", "getting-started/", "runtime/"])
def test_the_first_pages_code_fits_a_wide_window(site_url, path, tmp_path):
    """At 1280 px (both sidebars beside the page) no code block or output of the Home and
    Getting started pages, nor the runtime's stepper, scrolls sideways: the Home page's
    graph lost the end of its "answer" node, Getting started's result and tasks printed 95
    and 128 characters on one line, the stepper's attributes "run_so_far"; a "why"
    sentence wraps at a space. A PNG lands in tmp_path."""
    with offline_page(1280) as page:
        page.goto(f"{site_url}/{path}")
        page.evaluate("() => document.fonts.ready.then(() => true)")
        scrolls, split = page.evaluate(CODE_SCROLLS), page.evaluate(CODE_SPLIT_WORDS)
        page.screenshot(path=str(tmp_path / f"{path.strip('/') or 'home'}.png"), full_page=True)
    assert scrolls == [], f"/{path} at 1280 px: code scrolls sideways: {scrolls}"
    assert split == [], f"/{path} at 1280 px: words split: {split}"


# A Markdown page's code blocks that are code, not output (```text): how many, how many
# outputs, and each code block that scrolls sideways: how far, and its longest line.
CODE_NOT_OUTPUT_SCROLLS = """() => {
  const blocks = [...document.querySelectorAll('.md-content div.highlight:not(.doc-signature)')];
  const code = blocks.filter(block => !block.classList.contains('language-text'))
    .map(block => block.querySelector('pre > code'));
  return {code: code.length, outputs: blocks.length - code.length,
          scrolls: code.filter(c => c.scrollWidth > c.clientWidth + 1).map(c =>
            `${c.scrollWidth - c.clientWidth} px: ` +
            c.textContent.split('\\n').reduce((a, b) => (b.length > a.length ? b : a), ''))};
}"""

CODE_PAGES = ["store/", "langgraph/", "teaching/", "persistence/", "pregel/", "reference/graphkit/"]


@pytest.mark.docs
@pytest.mark.browser
def test_code_blocks_fit_a_wide_window(site_url, tmp_path):
    """At 1280 px, where a code block shows 82 characters, no block of code on the guides
    and the API reference scrolls sideways: these five guides had 27 such blocks and the
    reference 18, lines of 83 to 118 characters that scrolled 3 to 290 px. An output
    (```text) may scroll. tests/test_docs.py checks every page's code by its length; this
    checks that 82 characters fit the column. PNGs land in tmp_path."""
    found = {}
    with offline_page(1280) as page:
        for path in CODE_PAGES:
            page.goto(f"{site_url}/{path}")
            page.evaluate("() => document.fonts.ready.then(() => true)")
            found[path] = page.evaluate(CODE_NOT_OUTPUT_SCROLLS)
            page.screenshot(path=str(tmp_path / f"{path.strip('/').replace('/', '-')}.png"))
    assert all(counts["code"] for counts in found.values()), found
    assert sum(counts["outputs"] for counts in found.values()), "no output block is told apart"
    scrolls = {path: counts["scrolls"] for path, counts in found.items() if counts["scrolls"]}
    assert scrolls == {}, f"at 1280 px code scrolls sideways: {scrolls}"


def test_a_tables_long_code_may_break_after_its_separators():
    """In a table, a code span of 25 characters and more gets a line-break opportunity
    after each "/", "::", "_" and "." (docs/hooks.py); a shorter one, and any code outside
    a table, is left whole."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("graphkit_docs_hooks", ROOT / "docs/hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    long = "tests/conformance/test_parity_serde.py::test_a"
    html = (
        f"<p><code>{long}</code></p>"
        f"<table><tr><td><code>{long}</code> <code>handle_tool_errors</code></td></tr></table>"
    )
    assert hooks.break_long_table_code(html) == (
        f"<p><code>{long}</code></p><table><tr><td><code>tests/<wbr>conformance/<wbr>"
        "test_<wbr>parity_<wbr>serde.<wbr>py::<wbr>test_<wbr>a</code> "
        "<code>handle_tool_errors</code></td></tr></table>"
    )


# Each of the page's Markdown tables that scrolls sideways: by how much, and its heading.
TABLES_SCROLL = """() => [...document.querySelectorAll('.md-typeset__scrollwrap')]
  .filter(wrap => wrap.scrollWidth > wrap.clientWidth + 1)
  .map(wrap => `${wrap.scrollWidth - wrap.clientWidth} px: ` +
       wrap.querySelector('thead').textContent.replace(/\\s+/g, ' ').trim())"""

# Each code span of a table the page shows split between two letters or digits (a break
# after a path's "/", a test id's "::" or a long name's "_" is a line's end).
TABLE_CODE_SPLIT_IN_A_WORD = TABLE_CODE_SPLIT.replace("/\\w\\w/", "/[^\\W_][^\\W_]/")
assert TABLE_CODE_SPLIT_IN_A_WORD != TABLE_CODE_SPLIT


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("path", ["compatibility/", "bad-input/"])
def test_tables_of_long_code_fit_a_wide_window(site_url, path, tmp_path):
    """At 1280 px no table of the compatibility and bad-input pages scrolls sideways, and a
    code span breaks only after a "/", "::" or "_": the test ids that back each row (up to
    120 characters, unbroken) made the compatibility page's tables 1,200 and 2,060 px wide
    in 780, 24,000 px of rows whose last column the reader scrolled to. PNGs land in
    tmp_path."""
    with offline_page(1280) as page:
        page.goto(f"{site_url}/{path}")
        page.evaluate("() => document.fonts.ready.then(() => true)")
        scrolls, split = page.evaluate(TABLES_SCROLL), page.evaluate(TABLE_CODE_SPLIT_IN_A_WORD)
        page.screenshot(path=str(tmp_path / f"{path.strip('/')}.png"))
    assert scrolls == [], f"/{path} at 1280 px: tables scroll sideways: {scrolls}"
    assert split == [], f"/{path} at 1280 px: code split inside a word: {split}"
