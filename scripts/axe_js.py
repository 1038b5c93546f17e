"""axe-core, the accessibility checker the browser tests run on the debugger's pages.

tests/widgets/test_browser_a11y.py injects ``axe.min.js`` into the exported debugger page
and asserts that axe finds nothing serious or critical (an unlabelled control, text under
4.5:1, a box the keyboard cannot scroll). It comes from the npm registry's tarball of one
pinned version, checked against that tarball's pinned hash, as the docs site's widget
manager does (scripts/widget_js.py); it is fetched once into build/ and nothing of it is
committed (axe-core is MPL-2.0; its license is kept beside it).

    python scripts/axe_js.py                 # fetches when missing; prints the file
    python scripts/axe_js.py PAGE.html ...   # audits pages: axe's violations, worst first
"""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path

PACKAGE = "axe-core"
VERSION = "4.14.1"
# npm's "integrity" of that version's tarball: a tarball that differs is refused.
INTEGRITY = (
    "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76"
    "ASyFNNtuFooJpZe37OgudVGtQ=="
)
KEEP = {"package/axe.min.js": "axe.min.js", "package/LICENSE": "LICENSE"}
ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "build" / "axe-js" / f"axe-core-{VERSION}"
IMPACTS = ("critical", "serious", "moderate", "minor")

# Run in the page: axe's violations as plain data, each node by its selector and why.
RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), why: n.failureSummary || ''}))}));
}"""


def axe_js(folder: Path = FOLDER) -> Path:
    """``axe.min.js``, fetched from the npm registry first when it is not there yet."""
    from scripts.widget_js import npm_fetch  # (a file run alone puts the repo on the path first)

    def extract(tar: tarfile.TarFile, staging: Path) -> None:
        for member, name in KEEP.items():
            (staging / name).write_bytes(tar.extractfile(member).read())

    npm_fetch(
        folder,
        PACKAGE,
        VERSION,
        INTEGRITY,
        extract,
        whole="axe.min.js",
        used_for="the accessibility test runs it",
        needed_by="The accessibility test needs it once (cached in build/)",
        pinned_in="scripts/axe_js.py",
    )
    return folder / "axe.min.js"


def audit(page) -> list[dict]:
    """axe's violations on a Playwright ``page`` as it is now, worst first."""
    page.add_script_tag(path=str(axe_js()))
    return sorted(page.evaluate(RUN), key=lambda v: IMPACTS.index(v["impact"]))


def _main(paths: list[str]) -> int:
    """Audit each page (a file) light and dark; print the violations; 1 if any is serious."""
    from playwright.sync_api import sync_playwright

    from scripts.read_in_lab import CHROMIUM, CHROMIUM_ARGS

    worst = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for path in paths:
            for scheme in ("light", "dark"):
                context = browser.new_context(color_scheme=scheme)
                page = context.new_page()
                page.goto(Path(path).resolve().as_uri())
                found = audit(page)
                print(f"{path} ({scheme}): {len(found)} violations")
                for violation in found:
                    print(f"  {violation['impact']}: {violation['id']}: {violation['help']}")
                    for node in violation["nodes"]:
                        print(f"    {node['target']}: {' / '.join(node['why'].splitlines())}")
                    if violation["impact"] in ("critical", "serious"):
                        worst = 1
                context.close()
        browser.close()
    return worst


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # (run as a file: scripts/ is a package of the repo)
    try:
        sys.exit(_main(sys.argv[1:]) if sys.argv[1:] else print(axe_js()))
    except RuntimeError as error:
        sys.exit(str(error))
