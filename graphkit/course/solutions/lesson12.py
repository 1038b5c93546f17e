"""Solutions to lesson 12, "When a node fails: retries, handlers and what is saved"
(``notebooks/12-failures-and-retries.ipynb``).

>>> from graphkit.course import lesson12
>>> bool(lesson12.check_retry_policy(policy))
True
>>> bool(lesson12.check_fallback(fallback))
True
>>> bool(lesson12.check_resume_prediction(WILL_RUN))
True
"""

from __future__ import annotations

from graphkit import Command, RetryPolicy
from graphkit.course.lesson12 import RateLimited
from graphkit.errors import NodeError

__all__ = ["WILL_RUN", "fallback", "policy"]

# -- 12.1 · Retry the right errors: RateLimited only, three tries in all (the API answers
# on the third); no wait worth the name, so the lesson runs fast.

policy = RetryPolicy(retry_on=RateLimited, max_attempts=3, initial_interval=0.01, jitter=False)


# -- 12.2 · A fallback that finishes the run: the handler routes; cached_price writes.


def fallback(state: dict, error: NodeError) -> Command:
    return Command(goto="cached_price", update={"log": [f"live_price failed: {error.error}"]})


# -- 12.3 · Which nodes run when you resume: step 2 again, where search and translate had
# finished (their saved writes are applied) and summarize had not; then step 3 runs
# compose (from search and translate) and publish (from summarize).

WILL_RUN = {"summarize", "compose", "publish"}
