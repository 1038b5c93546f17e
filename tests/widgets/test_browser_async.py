"""The debugger on a graph of ``async def`` nodes, in a real kernel through Voila: the
cell runs on the thread of the kernel's event loop, so the nodes run on graphkit's own
(a and b meet at a barrier: the step ends only if they run side by side)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

LOAD = 90_000  # ms: Voila starts a kernel and runs the notebook on the first GET


def node(name: str, cls: str) -> str:
    return f'.gk-graph svg g[id="node-{name}"].{cls}'


def test_the_debugger_steps_async_nodes_in_a_kernel(page, voila_url):
    from playwright.sync_api import expect

    page.goto(f"{voila_url}/voila/render/async.ipynb")
    button = lambda name: page.locator(f".gk-{name}-button")  # noqa: E731
    button("step").wait_for(state="visible", timeout=LOAD)
    step, phase = page.locator(".gk-step"), page.locator(".gk-phase")
    button("step").click()
    button("step").click()
    expect(step).to_have_text("step 0")
    button("plan").click()
    expect(page.locator(node("a", "planned"))).to_have_count(1)
    expect(page.locator(node("b", "planned"))).to_have_count(1)
    button("execute").click()
    expect(phase).to_have_text("after Execute · next: Update")
    expect(page.locator(node("a", "wrote"))).to_have_count(1)
    expect(page.locator(node("b", "wrote"))).to_have_count(1)
    button("run").click()
    expect(page.locator(".gk-status")).to_contain_text("done")
    page.locator(".gk-tables .lm-TabBar-tab").filter(has_text="state").click()
    cell = page.locator(".gk-table-state td").filter(has_text="['a', 'b', 'end after 2']")
    expect(cell).not_to_have_count(0)
    button("back").click()  # restores the checkpoint before the last step; runs it again
    button("run").click()
    expect(page.locator(".gk-status")).to_contain_text("done")
    expect(cell).not_to_have_count(0)
