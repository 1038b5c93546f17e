"""Embedders: what turns text into vectors for semantic search, and how vectors compare.

An index's ``embed`` may be a function ``list[str] -> list[list[float]]``, an async one,
a LangChain ``Embeddings`` object (``embed_documents`` / ``embed_query`` and their async
twins), or a ``"provider:model"`` string that LangChain's ``init_embeddings`` loads.
``Embedder`` gives all four the same four methods.

>>> embedder = Embedder(lambda texts: [[len(text), 1.0] for text in texts])
>>> embedder.embed_query("cat")
[3, 1.0]
>>> round(cosine([1.0, 0.0], [1.0, 1.0]), 4)
0.7071
"""

from __future__ import annotations

import asyncio
import inspect
import math
from collections.abc import Callable
from typing import Any

__all__ = ["Embedder", "cosine"]


class Embedder:
    """One face for every kind of ``embed``: ``embed_documents``, ``embed_query`` and
    their async twins ``aembed_documents``, ``aembed_query``.

    A sync function also serves the async verbs (on a worker thread); an async function
    serves only them, and the sync verbs say so.

    >>> async def embed(texts):
    ...     return [[1.0, 0.0] for _ in texts]
    >>> import asyncio
    >>> asyncio.run(Embedder(embed).aembed_documents(["a", "b"]))
    [[1.0, 0.0], [1.0, 0.0]]
    >>> Embedder(embed)
    Embedder(embed, async)
    """

    def __init__(self, embed: Any) -> None:
        if isinstance(embed, str):
            embed = _from_provider(embed)
        self.source = embed
        if _is_embeddings(embed):
            self.kind = "embeddings"
        elif callable(embed):
            self.kind = "async" if _is_async(embed) else "sync"
        else:
            raise TypeError(
                f"index 'embed' must be a function list[str] -> list[list[float]], an async "
                f"one, a LangChain Embeddings object or a 'provider:model' string; got "
                f"{type(embed).__name__}. E.g. index={{'dims': 3, 'embed': my_embed}}."
            )

    def __repr__(self) -> str:
        name = getattr(self.source, "__name__", type(self.source).__name__)
        return f"Embedder({name}, {self.kind})"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """The vectors of ``texts``, one per text."""
        if self.kind == "embeddings":
            return self.source.embed_documents(texts)
        if self.kind == "async":
            raise ValueError(
                f"The index's embed function {self!r} is async, so the sync verbs (put, "
                "search, batch) cannot call it. Use aput / asearch / abatch, or give a sync "
                "function."
            )
        return self.source(texts)

    def embed_query(self, text: str) -> list[float]:
        """The vector of one search query."""
        if self.kind == "embeddings":
            return self.source.embed_query(text)
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """``embed_documents``, awaited (a sync embedder runs on a worker thread)."""
        if self.kind == "embeddings":
            return await self.source.aembed_documents(texts)
        if self.kind == "async":
            return await self.source(texts)
        return await asyncio.to_thread(self.source, texts)

    async def aembed_query(self, text: str) -> list[float]:
        """``embed_query``, awaited."""
        if self.kind == "embeddings":
            return await self.source.aembed_query(text)
        return (await self.aembed_documents([text]))[0]


def _is_embeddings(embed: Any) -> bool:
    """A LangChain ``Embeddings`` object, known by its two methods (no import needed)."""
    return all(callable(getattr(embed, name, None)) for name in ("embed_documents", "embed_query"))


def _is_async(function: Callable[..., Any]) -> bool:
    call = getattr(function, "__call__", None)  # noqa: B004 - a callable object's method
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(call)


def _from_provider(name: str) -> Any:
    """Load ``"provider:model"`` embeddings with LangChain's ``init_embeddings``."""
    provider, colon, model = name.partition(":")
    if not (colon and provider and model):
        raise ValueError(
            f"index 'embed' string {name!r} must name a provider and a model, e.g. "
            "'openai:text-embedding-3-small'; or pass a function or an Embeddings object."
        )
    try:
        from langchain.embeddings import init_embeddings
    except ImportError:
        raise ValueError(
            f"index 'embed' {name!r} is loaded by LangChain's init_embeddings, and the "
            f"'langchain' package is not installed. Install it and the provider's package: "
            f"pip install langchain langchain-{provider} — or pass a function or an "
            "Embeddings object as 'embed'."
        ) from None
    return init_embeddings(name)


def cosine(left: list[float], right: list[float]) -> float:
    """Cosine similarity of two vectors: 1 same direction, 0 unrelated, -1 opposite.

    A zero vector is similar to nothing (0.0).

    >>> cosine([3.0, 4.0], [6.0, 8.0]), cosine([1.0, 0.0], [0.0, 0.0])
    (1.0, 0.0)
    """
    dot = sum(a * b for a, b in zip(left, right, strict=True))
    norms = math.sqrt(sum(a * a for a in left)) * math.sqrt(sum(b * b for b in right))
    return dot / norms if norms else 0.0
