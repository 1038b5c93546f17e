"""Run every code cell of a notebook twice in a row, as a learner who runs a cell again,
and print the cells whose second output differs from their first.

    .venv/bin/graphkit lessons /tmp/twice
    .venv/bin/python scripts/run_cells_twice.py /tmp/twice/08-human-in-the-loop.ipynb

Ids, times and addresses are blanked before the two outputs are compared. A difference is
a place to look, not a verdict: a step cell that refuses to step twice, or a thread that
grew and says so, is honest; a cell whose second run raises or contradicts its text is
not (docs/teaching.md, "Testing the checks"). Needs a Python 3 kernel with graphkit.
"""

from __future__ import annotations

import argparse
import json
import queue
import re
from pathlib import Path
from typing import Any

_BLANKED = [
    (re.compile(r"0x[0-9a-f]+"), "0x…"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f-]{14,}"), "<uuid>"),
    (re.compile(r"\d{4}-\d\d-\d\dT[\d:.+]+"), "<time>"),
    (re.compile(r"\d+(\.\d+)?\s?(ms|µs|s)\b"), "<duration>"),
    (re.compile(r"In\[\d+\]"), "In[…]"),
    (re.compile(r"\d+\.\d{3,}"), "<float>"),
]


def _blanked(text: str) -> str:
    for pattern, blank in _BLANKED:
        text = pattern.sub(blank, text)
    return text


def _output(client: Any, code: str, timeout: float) -> str:
    """What running ``code`` printed, displayed or raised, as one text."""
    client.execute(code)
    parts = []
    while True:
        try:
            message = client.get_iopub_msg(timeout=timeout)
        except queue.Empty:
            parts.append(f"(no answer in {timeout:g} s)")
            break
        kind, content = message["msg_type"], message["content"]
        if kind == "stream":
            parts.append(content["text"])
        elif kind in ("execute_result", "display_data"):
            data = content["data"]
            parts.append(data.get("text/plain") or data.get("text/html", ""))
        elif kind == "error":
            parts.append(f"{content['ename']}: {content['evalue']}")
        elif kind == "status" and content["execution_state"] == "idle":
            break
    return _blanked("".join(parts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--timeout", type=float, default=120, help="seconds a cell may take")
    args = parser.parse_args()
    from jupyter_client.manager import start_new_kernel

    cells = json.loads(args.notebook.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(args.notebook.parent))
    differ = 0
    try:
        for number, source in enumerate(sources):
            first, second = (_output(client, source, args.timeout) for _ in range(2))
            if first != second:
                differ += 1
                head = source.splitlines()[0][:90] if source else ""
                print(f"code cell {number}: {head}")
                print("  first :", first[:300].replace("\n", " | "))
                print("  second:", second[:300].replace("\n", " | "))
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    print(f"{differ} of {len(sources)} code cells showed something else the second time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
