"""The Jupyter widget manager the docs site's lessons render their saved widgets with.

mkdocs-jupyter's pages load ``@jupyter-widgets/html-manager`` from a public CDN, at any
version, and in its AMD build, which needs RequireJS that those pages leave out: the
lessons' debuggers showed nothing, offline or not. The site serves its own copy instead
(docs/hooks.py points the lessons at it): the standalone build ``dist/embed.js``, its
license notice and the icon fonts it loads, taken from the npm registry's tarball of one
pinned version and checked against that tarball's pinned hash. It is fetched once into
build/ (``make widget-js``, or the first docs build); nothing of it is committed.

    python scripts/widget_js.py    # fetches when missing; prints the folder
"""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

PACKAGE = "@jupyter-widgets/html-manager"
VERSION = "1.0.15"  # html-manager 1.0 renders ipywidgets 8's state (pyproject: ipywidgets 8.1)
# npm's "integrity" of that version's tarball: a tarball that differs is refused.
INTEGRITY = (
    "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//"
    "SABeNz1yp47bCrJ3CQA=="
)
# The bundle, its license notice, and the woff2/woff icon fonts (what browsers take; the
# eot/ttf/svg copies of the same fonts, 2.5 MB, are for browsers long gone).
KEEP = re.compile(r"package/dist/(embed\.js|embed\.js\.LICENSE\.txt|[0-9a-f]{20}\.woff2?)")
ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "build" / "widget-js" / f"html-manager-{VERSION}"
NPM_ERROR = re.compile(r"npm (?:error|ERR!) (\S.*)")  # (npm 9 and later; npm 8 and before)


def widget_js(folder: Path = FOLDER) -> Path:
    """The folder holding ``embed.js`` and its fonts, fetched from the npm registry first
    when it is not there yet."""

    def extract(tar: tarfile.TarFile, staging: Path) -> None:
        for member in tar.getmembers():
            if member.isfile() and KEEP.fullmatch(member.name):
                source = tar.extractfile(member)
                (staging / Path(member.name).name).write_bytes(source.read())
        if not (staging / "embed.js").is_file():
            raise RuntimeError(f"{PACKAGE}@{VERSION} has no dist/embed.js: pick another VERSION")

    return npm_fetch(
        folder,
        PACKAGE,
        VERSION,
        INTEGRITY,
        extract,
        whole="embed.js",
        used_for="the docs site serves it (the lessons' widget manager)",
        needed_by="The docs site needs it once (cached in build/)",
        pinned_in="scripts/widget_js.py",
    )


def npm_fetch(
    folder: Path,
    package: str,
    version: str,
    integrity: str,
    extract: Callable[[tarfile.TarFile, Path], None],
    *,
    whole: str,
    used_for: str,
    needed_by: str,
    pinned_in: str,
) -> Path:
    """``folder``, filled from ``package@version``'s pinned tarball by ``extract(tar,
    staging)`` unless its file ``whole`` is there already. The files are staged and moved
    into place at once: a copy cut short is replaced, one another run put there meanwhile
    is kept."""
    if (folder / whole).is_file():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError(
            f"npm is missing: {package}@{version} comes from the npm registry, and "
            f"{used_for}. Install it with `make system` (apt-get install npm), then run again."
        )
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        pack = npm_pack(
            npm, package, version, integrity, Path(tmp), needed_by=needed_by, pinned_in=pinned_in
        )
        staging = Path(tmp) / "files"
        staging.mkdir()
        with tarfile.open(pack) as tar:
            extract(tar, staging)
        shutil.rmtree(folder, ignore_errors=True)  # a copy cut short (no ``whole`` file)
        try:
            staging.rename(folder)
        except OSError:  # another run put it there meanwhile
            if not (folder / whole).is_file():
                raise
    return folder


def npm_pack(
    npm: str,
    package: str,
    version: str,
    integrity: str,
    into: Path,
    *,
    needed_by: str,
    pinned_in: str,
) -> Path:
    """``npm pack package@version`` into ``into``, checked against its pinned
    ``integrity``; a failure says why and what to do (``needed_by``: who needs it)."""
    result = subprocess.run(
        # (--loglevel=error, not --silent: a failure's reason, e.g. ECONNREFUSED offline,
        # is npm's error lines, which --silent drops too)
        [npm, "pack", f"{package}@{version}", "--pack-destination", str(into), "--loglevel=error"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    tarballs = list(into.glob("*.tgz"))
    if result.returncode != 0 or len(tarballs) != 1:
        raise RuntimeError(
            f"`npm pack {package}@{version}` failed (exit {result.returncode}):\n"
            f"{_reason(result.stderr)}\n{needed_by}: check that the npm registry is "
            "reachable (`npm config get registry`), or run it once where it is."
        )
    digest = hashlib.sha512(tarballs[0].read_bytes()).digest()
    found = "sha512-" + base64.b64encode(digest).decode()
    if found != integrity:
        raise RuntimeError(
            f"{package}@{version} from the npm registry is not the tarball pinned in "
            f"{pinned_in}: its integrity is {found}, pinned {integrity}. After a change of "
            f"the version, pin what `npm view {package}@{version} dist.integrity` prints; "
            "otherwise check the registry npm uses (`npm config get registry`)."
        )
    return tarballs[0]


def _reason(stderr: str, most: int = 6) -> str:
    """npm's error lines, without the stack trace and error object it indents below
    them, which bury the reason (``FetchError: request to … failed, reason: connect
    ECONNREFUSED``); what else it wrote when it wrote none."""
    lines = [
        found.group(1)
        for found in map(NPM_ERROR.fullmatch, stderr.splitlines())
        if found and found.group(1) != "}" and not found.group(1).startswith("A complete log")
    ]
    return "\n".join(f"  {line}" for line in lines[:most]) or f"  {stderr.strip()[-1000:]}"


if __name__ == "__main__":
    try:
        print(widget_js())
    except RuntimeError as error:
        sys.exit(str(error))
