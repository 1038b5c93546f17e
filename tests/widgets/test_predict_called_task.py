"""``predict(nodes=...)`` on an entrypoint: a ``@task`` it calls, predicted as a node of
the step (lesson 13's natural wrong guess, ``["weather", "fetch"]``), is scored wrong and
explained (the Plan plans the entrypoint alone; the call is a task of the step, made by
the call), where it raised "No node named 'fetch'". LangGraph's Plan is the same: the
step's planned tasks (``next``) are the entrypoint alone."""

from __future__ import annotations

import types

import pytest

from graphkit import InMemorySaver
from graphkit.func import entrypoint, task
from graphkit.widgets import DebugSession


def weather_program(entrypoint_, task_, saver=None):
    @task_
    def fetch(city: str) -> str:
        return f"sunny in {city}"

    @task_
    def summarise(reports: list[str]) -> str:
        return "; ".join(reports)

    @entrypoint_(checkpointer=saver)
    def weather(cities: list[str]) -> str:
        reports = [future.result() for future in [fetch(city) for city in cities]]
        return summarise(reports).result()

    return weather


def test_langgraph_plans_the_entrypoint_alone_and_its_calls_are_not_nodes():
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.func import entrypoint as lg_entrypoint
    from langgraph.func import task as lg_task

    config = {"configurable": {"thread_id": "t"}}
    for app, saver in ((weather_program(lg_entrypoint, lg_task, LangGraphSaver()), 1),
                       (weather_program(entrypoint, task, InMemorySaver()), 2)):  # fmt: skip
        app.invoke(["Oslo", "Lima"], config)
        planned = {s.metadata["step"]: s.next for s in app.get_state_history(config)}
        assert planned[-1] == ("weather",), saver  # step 0's Plan: the entrypoint alone
        assert "fetch" not in app.get_graph().nodes, saver


def test_a_task_predicted_as_a_node_is_scored_wrong_and_explained():
    session = DebugSession(weather_program(entrypoint, task), ["Oslo", "Lima"])
    session.step()  # the input step
    prediction = session.predict(nodes=["weather", "fetch"])
    assert not prediction.correct
    assert prediction.expected == ["weather"]
    assert str(session.score) == "0 of 1 predictions right"
    text = " ".join(prediction.explanation.split())
    assert text.startswith("Not quite: step 0 runs weather; you predicted fetch, weather.")
    assert (
        "- fetch is a @task, not a node: no Plan plans it. weather, which step 0 runs, "
        "calls it during step 0's Execute; each call is a task of step 0 too (kind call, "
        "started_by weather), made by the call, not by the Plan."
    ) in text


def test_a_task_a_helper_calls_and_one_only_the_records_show_are_known_too():
    @task
    def inner(x: int) -> int:
        return x

    @task
    def outer(x: int) -> int:
        return inner(x).result()

    hidden = types.SimpleNamespace(task=outer)  # (called through an object: no name)

    def helper(x: int) -> int:
        return outer(x).result() + hidden.task(x).result()

    @entrypoint()
    def program(x: int) -> int:
        return helper(x)

    @entrypoint()
    def opaque(x: int) -> int:
        return hidden.task(x).result()

    session = DebugSession(program, 1)
    session.step()
    assert not session.predict(nodes=["program", "inner"]).correct  # (outer calls inner)
    session = DebugSession(opaque, 1)
    session.step()
    with pytest.raises(ValueError, match=r"No node named \['outer'\]"):
        session.predict(nodes=["opaque", "outer"])  # (not named in its code, not yet run)
    session.run()  # step 0: outer and inner ran, and the run is over
    with pytest.raises(ValueError, match="before Plan; the run is over"):  # (known now:
        session.predict(nodes=["outer"])  # the records show it called, not "No node")


def test_a_slip_on_a_task_name_is_still_an_error_that_suggests_it():
    session = DebugSession(weather_program(entrypoint, task), ["Oslo"])
    session.step()
    with pytest.raises(ValueError, match="did you mean 'fetch'"):
        session.predict(nodes=["weather", "fecth"])


def test_at_the_input_step_an_entrypoint_runs_its_function_next_not_start():
    session = DebugSession(weather_program(entrypoint, task), ["Oslo"])
    text = " ".join(session.predict(nodes=["weather"]).explanation.split())
    assert "Step 0 runs weather, on that input." in text
    assert "copies the input into the state" not in text
