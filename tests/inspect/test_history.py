"""History: look-ups over a run's records that why() builds on."""

from __future__ import annotations

from graphkit import START, Command, Send
from graphkit.inspect.history import History


def test_ran_at_and_final_checkpoint(seed_run, failing_run):
    history = History(seed_run)
    assert history.ran_at("weather") == [2]
    assert history.ran_at("nobody") == []
    assert history.final_checkpoint() is seed_run.steps[-1].checkpoint
    assert History(failing_run).final_checkpoint() is failing_run.step(1).checkpoint_before


def test_written_finds_the_update_that_set_a_version(seed_run):
    history = History(seed_run)
    version = seed_run.step(3).plan.tasks[0].trigger_versions["branch:to:summarize"]
    step, change = history.written("branch:to:summarize", version, before=3)
    assert step == 2 and change.writers == ("news", "weather")
    assert history.written("branch:to:summarize", 999, before=3) is None
    assert [step for step, _ in history.changes("token_count")] == [0, 1, 2]


def test_writes_since_reset_since_the_last_reset(waiting):
    run = waiting.trace({"x": 0, "log": []})
    history = History(run)
    assert history.writes_since_reset("join:a+b:c", upto=2) == {"a": 1}
    assert history.writes_since_reset("join:a+b:c", upto=3) == {"a": 1, "b": 3}
    assert history.writes_since_reset("join:a+b:c", upto=4) == {}  # reset once c ran


def test_chosen_and_unapplied_writers(seed_run, failing_run):
    assert History(seed_run).chosen("planner", 1) == ("weather", "news")
    assert History(seed_run).unapplied_writers("log", 1) == ()
    assert History(failing_run).unapplied_writers("branch:to:after", 1) == ("ok",)


def test_sends_and_commands(make):
    def plan(state):
        return Command(goto=[Send("work", {"x": 1, "log": []}), "check"])

    app = make([("plan", plan), "work", "check"], [(START, "plan")])
    history = History(app.trace({"x": 0, "log": []}))
    assert [(sender, packet.node) for sender, packet in history.sends(1)] == [("plan", "work")]
    assert history.sent_to("work") == [1]
    assert [getattr(d, "node", d) for d in history.goto("plan", 1)] == ["work", "check"]
    assert history.commanded(("plan",), "check", 1) == ["plan"]
    assert history.commanded(("plan",), "other", 1) == []


def test_dropped_names_a_choice_that_is_not_a_node(make):
    import warnings

    from graphkit import START, GraphkitWarning

    app = make(["triage", "billing"], [(START, "triage")], [("triage", lambda s: "Billing", None)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        history = History(app.trace({"x": 0, "log": []}))
    assert history.chosen("triage", 1) == ("Billing",)
    assert history.dropped("triage", 1) == ("Billing",)
    assert history.dropped("triage", 0) == ()
