"""The seed example (planner -> weather || news -> summarize), step by step."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SEED = Path(__file__).parent.parent / "examples" / "seed.py"


@pytest.fixture(scope="module")
def seed():
    spec = importlib.util.spec_from_file_location("seed_example", SEED)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # type hints are resolved through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run(seed):
    return seed.build_graph().trace({"messages": [("user", "hi")], "token_count": 1})


def test_steps_run_planner_then_weather_and_news_together_then_summarize(run):
    assert [(s.step, s.plan.nodes) for s in run.steps] == [
        (-1, ["__input__"]),
        (0, ["__start__"]),
        (1, ["planner"]),
        (2, ["news", "weather"]),
        (3, ["summarize"]),
    ]
    assert run.status == "done"


def test_token_count_goes_1_101_201_201(run):
    after = {s.step: s.checkpoint.channel_values["token_count"] for s in run.steps if s.step >= 0}
    assert [after[0], after[1], after[2], after[3]] == [1, 101, 201, 201]


def test_branch_write_is_in_planners_step_and_targets_run_one_step_later(run):
    planner_step = run.step(1)
    (planner,) = planner_step.execution.results
    assert ("branch:to:weather", None) in planner.writes
    assert ("branch:to:news", None) in planner.writes
    assert {"branch:to:weather", "branch:to:news"} <= planner_step.update.updated_channels
    assert "weather" not in planner_step.plan.nodes
    later = run.step(2)
    triggers = {task.node: task.triggers for task in later.plan.tasks}
    assert triggers == {"news": ("branch:to:news",), "weather": ("branch:to:weather",)}
    versions = {task.node: task.trigger_versions for task in later.plan.tasks}
    written = planner_step.update.change("branch:to:weather").version_after
    assert versions["weather"] == {"branch:to:weather": written}


def test_parallel_writes_meet_in_one_reducer_call_in_task_path_order(run):
    change = run.step(2).update.change("token_count")
    assert (change.before, change.after) == (101, 201)
    assert change.writers == ("news", "weather")
    assert change.values == (50, 50)
    assert change.reducer == "add"


def test_siblings_do_not_see_each_others_writes(run):
    news, weather = run.step(2).plan.tasks
    assert "weather" not in news.input and "news" not in weather.input
    assert news.input["token_count"] == weather.input["token_count"] == 101


def test_final_state(run):
    assert run.values == {
        "messages": [("user", "hi"), ("ai", "sunny; market up")],
        "token_count": 201,
        "plan": "check the weather and the news",
        "weather": "sunny",
        "news": "market up",
    }


def test_demo_prints_every_phase(seed, capsys):
    seed.main()
    out = capsys.readouterr().out
    assert "step 2" in out
    assert "UPDATE   token_count          101 -> 201  (from news, weather)" in out
    assert out.rstrip().endswith("'weather': 'sunny', 'news': 'market up'}")
