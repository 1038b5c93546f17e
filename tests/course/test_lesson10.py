"""Tests of lesson 10's checks: each passes on its solution and fails, saying what the
runtime saw, on the notebook's stub and on typical wrong answers."""

from __future__ import annotations

from graphkit.course import lesson10
from graphkit.course.solutions import lesson10 as solutions


def test_min_combiner_passes_on_the_solution():
    verdict = lesson10.check_min_combiner(solutions.min_combine)
    assert verdict, verdict


def test_min_combiner_fails_on_the_stub():
    verdict = lesson10.check_min_combiner(lambda left, right: right)
    assert not verdict
    assert "every vertex of either side" in verdict.message


def test_min_combiner_fails_on_last_write_wins():
    verdict = lesson10.check_min_combiner(lambda left, right: {**left, **right})
    assert not verdict
    assert "returned {'A': 0, 'B': 9, 'C': 2}" in verdict.message


def test_min_combiner_fails_on_a_mutating_reducer():
    def mutate(left, right):
        for vertex, d in right.items():
            left[vertex] = min(d, left.get(vertex, d))
        return left

    verdict = lesson10.check_min_combiner(mutate)
    assert not verdict
    assert "changed its arguments" in verdict.message


def test_min_combiner_fails_in_the_run_when_only_the_unit_cases_pass():
    cases = {
        ((("A", 0), ("B", 4), ("C", 1)), (("B", 3), ("D", 5))): {"A": 0, "B": 3, "C": 1, "D": 5},
        ((("A", 0), ("B", 4)), (("B", 9), ("C", 2))): {"A": 0, "B": 4, "C": 2},
    }

    def memorised(left, right):
        key = (tuple(left.items()), tuple(right.items()))
        return dict(cases[key]) if key in cases else {**left, **right}

    verdict = lesson10.check_min_combiner(memorised)
    assert not verdict
    assert "Dijkstra says" in verdict.message
    assert "'fork'" in verdict.message


def test_superstep_count_passes_on_the_solution():
    verdict = lesson10.check_superstep_count(solutions.answer)
    assert verdict, verdict


def test_superstep_count_fails_on_the_stub_and_on_the_hop_count():
    verdict = lesson10.check_superstep_count(0)
    assert not verdict
    assert "You said 0" in verdict.message and "more supersteps" in verdict.message
    assert "5" not in verdict.message  # the answer is not given away
    verdict = lesson10.check_superstep_count(3)  # edges on the longest shortest path
    assert not verdict
    assert "long cheap path" in verdict.hint


def test_superstep_count_fails_when_counting_the_empty_last_plan():
    verdict = lesson10.check_superstep_count(6)
    assert not verdict
    assert "runs once" in verdict.hint


def test_pagerank_update_passes_on_the_solution():
    verdict = lesson10.check_pagerank_update(solutions.pagerank_update)
    assert verdict, verdict


def test_pagerank_update_fails_on_the_stub():
    verdict = lesson10.check_pagerank_update(lambda state: {"rank": state["rank"]})
    assert not verdict
    assert "after 1 superstep(s)" in verdict.message


def test_pagerank_update_fails_on_an_in_place_update():
    def gauss_seidel(state):
        links, rank = state["links"], dict(state["rank"])
        for page in links:
            incoming = sum(rank[q] / len(outs) for q, outs in links.items() if page in outs)
            rank[page] = 0.15 / len(links) + 0.85 * incoming  # reads this step's ranks
        return {"rank": rank}

    verdict = lesson10.check_pagerank_update(gauss_seidel)
    assert not verdict
    assert "previous superstep's rank" in verdict.hint


def test_pagerank_update_fails_without_damping():
    def undamped(state):
        links, rank = state["links"], state["rank"]
        return {
            "rank": {
                page: sum(rank[q] / len(outs) for q, outs in links.items() if page in outs)
                for page in links
            }
        }

    verdict = lesson10.check_pagerank_update(undamped)
    assert not verdict
    assert "(expected" in verdict.message


def test_pagerank_update_fails_when_pages_are_missing():
    verdict = lesson10.check_pagerank_update(lambda state: {"rank": {"A": 1.0}})
    assert not verdict
    assert "one value per page" in verdict.message
