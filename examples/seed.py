"""The seed example: planner -> (weather || news) -> summarize, one phase at a time.

Run it with ``make demo``. It prints every superstep's Plan, Execute and Update, so
you can watch the three things BSP is about: the router runs in planner's step but
its targets run one step later; weather and news run in the same step and neither
sees the other's writes; their two ``token_count`` writes meet in one Update, which
folds each into the value with the reducer.
"""

from __future__ import annotations

import operator
import warnings
from typing import Annotated, TypedDict

from graphkit import END, START, GraphkitWarning, StateGraph


class State(TypedDict):
    messages: Annotated[list, operator.add]
    token_count: Annotated[int, operator.add]
    plan: str
    weather: str
    news: str


def planner(state: State) -> dict:
    return {"plan": "check the weather and the news", "token_count": 100}


def route(state: State) -> list[str]:
    return ["weather", "news"]


def call_weather(state: State) -> dict:
    return {"weather": "sunny", "token_count": 50}


def call_news(state: State) -> dict:
    return {"news": "market up", "token_count": 50}


def summarize(state: State) -> dict:
    return {"messages": [("ai", f"{state['weather']}; {state['news']}")]}


def build_graph():
    """The seed graph, as the LangGraph article builds it."""
    builder = StateGraph(State)
    builder.add_node("planner", planner)
    builder.add_node("weather", call_weather)
    builder.add_node("news", call_news)
    builder.add_node("summarize", summarize)
    builder.add_edge(START, "planner")
    builder.add_conditional_edges("planner", route, {"weather": "weather", "news": "news"})
    builder.add_edge("weather", "summarize")
    builder.add_edge("news", "summarize")
    builder.add_edge("summarize", END)
    with warnings.catch_warnings():  # nodes named like state keys, as in the article
        warnings.simplefilter("ignore", GraphkitWarning)
        return builder.compile()


def _short(value: object, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def main() -> None:
    app = build_graph()
    stepper = app.stepper({"messages": [("user", "what's up today?")], "token_count": 1})
    while True:
        plan = stepper.plan()
        if stepper.done:
            print(f"step {plan.step}  PLAN     no task is triggered: the run is done\n")
            break
        title = "(input step)" if plan.step == -1 else ""
        print(f"step {plan.step} {title}")
        for task in plan.tasks:
            print(f"  PLAN     {task.node:<10} triggered by {list(task.triggers)}")
        for result in stepper.execute().results:
            writes = ", ".join(f"{channel}={_short(value, 40)}" for channel, value in result.writes)
            print(f"  EXECUTE  {result.task.node:<10} wrote {writes}")
        for change in stepper.update().changes:
            writers = f"  (from {', '.join(change.writers)})" if change.writers else ""
            print(
                f"  UPDATE   {change.channel:<20} {_short(change.before, 30)} -> "
                f"{_short(change.after, 30)}{writers}"
            )
        print()
    print("final state:", stepper.values)


if __name__ == "__main__":
    main()
