"""The projections of a v3 run, compared with LangGraph's: ``run.values``,
``run.subgraphs`` (a handle per subgraph, with projections of its own),
``run.lifecycle``, ``run.messages`` (a ``ChatModelStream`` per message),
``run.interleave(...)``, the ``transformers=`` a run is given (built-in and user-written,
named channels forwarded as ``custom:<name>`` events) and ``run.extensions``."""

from __future__ import annotations

from typing import Any

import pytest

from .stream_v3_programs import (
    HOW,
    INPUT,
    THREAD,
    Ids,
    State,
    chain,
    chat_stream,
    chatty,
    fan_out,
    lines,
    low_level,
    nested,
    outcome,
    plain,
    run_v3,
    with_model,
)
from .test_parity_stream_v3 import assert_same

pytestmark = pytest.mark.filterwarnings("ignore:The v3 streaming protocol")


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("program", [chain, fan_out, nested])
def test_values(program, how):
    def sync(run):
        return list(run.values), run.output

    async def asynchronous(run):
        return [v async for v in run.values], await run.output()

    read = sync if how == "sync" else asynchronous
    seen = assert_same(lambda lib: run_v3(program(lib), INPUT, how, read))
    assert seen[0][-1] == seen[1]


def _handle(handle: Any, ids: Ids) -> dict[str, Any]:
    return {
        "path": ids.namespace(handle.path),
        "graph_name": handle.graph_name,
        "trigger_call_id": ids.id(handle.trigger_call_id),
        "status": handle.status,
        "error": handle.error,
        "type": type(handle).__name__,
    }


def read_subgraphs(run: Any) -> Any:
    """Each handle as it comes, with its values and its own subgraphs' (read inside the
    loop, as they must be), then its final status."""
    ids, seen = Ids(), []
    try:
        for handle in run.subgraphs:
            values = handle.values
            children = handle.subgraphs
            grandchildren = []
            for child in children:
                grandchildren.append((_handle(child, ids), list(child.values)))
            seen.append((handle, list(values), grandchildren))
    except Exception as error:
        return outcome(error)
    return [(_handle(h, ids), values, grand) for h, values, grand in seen], run.output


@pytest.mark.parametrize("kind", ["ok", "ask", "fail"])
def test_subgraph_handles(kind):
    options = {"ask": kind == "ask", "fail": kind == "fail"}
    seen = assert_same(lambda lib: run_v3(nested(lib, **options), INPUT, "sync", read_subgraphs))
    assert seen


@pytest.mark.parametrize("kind", ["ok", "ask", "fail"])
def test_async_subgraph_handles(kind):
    async def read(run):
        ids, seen = Ids(), []
        try:
            async for handle in run.subgraphs:
                values = [v async for v in handle.values]
                seen.append((handle, values))
        except Exception as error:
            return outcome(error)
        return [(_handle(h, ids), values) for h, values in seen]

    options = {"ask": kind == "ask", "fail": kind == "fail"}
    assert assert_same(lambda lib: run_v3(nested(lib, **options), INPUT, "async", read))


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("kind", ["ok", "ask", "fail"])
def test_lifecycle(kind, how):
    def sync(run):
        ids = Ids()
        try:
            return [plain(item, ids) for item in run.lifecycle]
        except Exception as error:
            return outcome(error)

    async def asynchronous(run):
        ids = Ids()
        try:
            return [plain(item, ids) async for item in run.lifecycle]
        except Exception as error:
            return outcome(error)

    read = sync if how == "sync" else asynchronous
    options = {"ask": kind == "ask", "fail": kind == "fail"}
    assert assert_same(lambda lib: run_v3(nested(lib, **options), INPUT, how, read))


def _chat(stream: Any) -> Any:
    return (type(stream).__name__, stream.node, stream.message_id, plain(stream.output, Ids()))


def test_messages_from_nodes():
    def read(run):
        return [_chat(stream) for stream in run.messages], lines(list(run))

    seen = assert_same(lambda lib: run_v3(chatty(lib), {"messages": []}, "sync", read, None))
    assert [m[1] for m in seen[0]] == ["say", "more"]


def test_message_events():
    assert_same(lambda lib: lines(list(chatty(lib).stream_events({"messages": []}, version="v3"))))


def test_async_messages():
    async def read(run):
        return [
            (type(s).__name__, s.node, plain(await s.output, Ids())) async for s in run.messages
        ]

    assert assert_same(lambda lib: run_v3(chatty(lib), {"messages": []}, "async", read, None))


def test_interleave():
    def read(run):
        return [
            (name, _chat(item) if name == "messages" else item)
            for name, item in run.interleave("values", "messages")
        ]

    assert assert_same(lambda lib: run_v3(chatty(lib), {"messages": []}, "sync", read, None))


# -- transformers ---------------------------------------------------------------------------

BUILT_IN = ["Updates", "Custom", "Checkpoints", "Tasks", "Debug"]


def _payload(name: str, item: Any, ids: Ids) -> Any:
    if name == "checkpoints":
        return (plain(item["values"], ids), list(item["next"]))
    if name == "debug":
        return (item["type"], item["step"])
    if name == "tasks":
        return item["name"], sorted(item)
    return plain(item, ids)


@pytest.mark.parametrize("transformer", BUILT_IN)
@pytest.mark.parametrize("program", [chain, nested])
def test_built_in_transformers(transformer, program):
    def read(run):
        key = transformer.lower()
        ids = Ids()
        items = [_payload(key, item, ids) for item in run.extensions[key]]
        return items, sorted(run.extensions), run.output

    def go(lib):
        kind = getattr(lib.stream, transformer + "Transformer")
        return run_v3(program(lib), INPUT, "sync", read, transformers=[kind])

    assert assert_same(go)


@pytest.mark.parametrize("transformer", ["UpdatesTransformer", "CustomTransformer"])
def test_built_in_transformers_add_their_events(transformer):
    def go(lib):
        kind = getattr(lib.stream, transformer)
        return run_v3(chain(lib), INPUT, "sync", lambda run: lines(list(run)), transformers=[kind])

    assert any(not line.startswith("values") for line in assert_same(go))


def counter(lib: Any, native: bool) -> Any:
    """A transformer counting "values" events in a named channel "count"."""

    class Count(lib.stream.StreamTransformer):
        _native = native
        required_stream_modes = ("values",)

        def init(self):
            self.channel = lib.stream.StreamChannel("count")
            self.n = 0
            return {"count": self.channel}

        def process(self, event):
            if event["method"] == "values" and event["params"]["namespace"] == list(self.scope):
                self.n += 1
                self.channel.push(self.n)
            return True

    return Count


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("native", [True, False])
def test_a_custom_transformer(native, how):
    def sync(run):
        attribute = hasattr(run, "count")
        return attribute, sorted(run.extensions), lines(list(run)), run.output

    async def asynchronous(run):
        attribute = hasattr(run, "count")
        events = [e async for e in run]
        return attribute, sorted(run.extensions), lines(events), await run.output()

    read = sync if how == "sync" else asynchronous
    seen = assert_same(
        lambda lib: run_v3(nested(lib), INPUT, how, read, transformers=[counter(lib, native)])
    )
    assert seen[0] is native
    assert any(line.startswith("count" if native else "custom:count") for line in seen[2])


def test_a_custom_transformer_on_subgraph_handles():
    def read(run):
        return [(h.path[0].split(":")[0], list(h.count)) for h in run.subgraphs]

    assert assert_same(
        lambda lib: run_v3(nested(lib), INPUT, "sync", read, transformers=[counter(lib, True)])
    )


def test_a_missing_projection_is_an_attribute_error():
    def program(lib):
        run = chain(lib).stream_events(INPUT, THREAD, version="v3")
        with pytest.raises(AttributeError) as raised:
            run.updates  # noqa: B018
        return str(raised.value)

    assert assert_same(program)


def test_a_projection_has_one_reader():
    def program(lib):
        run = chain(lib).stream_events(INPUT, THREAD, version="v3")
        iter(run.values)
        with pytest.raises(RuntimeError) as raised:
            iter(run.values)
        return str(raised.value)

    assert_same(program)


def test_an_async_only_transformer_is_refused_on_a_sync_run():
    def program(lib):
        class Slow(lib.stream.StreamTransformer):
            def init(self):
                return {}

            async def aprocess(self, event):
                return True

        with pytest.raises(RuntimeError) as raised:
            chain(lib).stream_events(INPUT, THREAD, version="v3", transformers=[Slow])
        return str(raised.value).replace("stream_events", "stream")

    assert_same(program)


# -- chat models: protocol events, one ChatModelStream per call ----------------------------


@pytest.mark.parametrize("call", ["invoke", "ainvoke", "stream"])
@pytest.mark.parametrize("inside", [False, True], ids=["root", "in-a-subgraph"])
def test_chat_model_calls(call, inside):
    how = "async" if call == "ainvoke" else "sync"

    def sync(run):
        return lines(list(run)), plain(run.output, Ids())

    async def asynchronous(run):
        return lines([e async for e in run]), plain(await run.output(), Ids())

    read = sync if how == "sync" else asynchronous

    def program(lib):
        return run_v3(with_model(lib, call, inside=inside), {"messages": []}, how, read, None)

    events = assert_same(program)[0]
    assert any(line.startswith("messages") for line in events)


@pytest.mark.parametrize("inside", [False, True], ids=["root", "in-a-subgraph"])
def test_chat_model_streams(inside):
    def read(run):
        ids = Ids()
        found = [(*chat_stream(stream, ids), list(stream.text)) for stream in run.messages]
        return found, [chat_stream(s, ids) for h in run.subgraphs for s in h.messages]

    def program(lib):
        return run_v3(with_model(lib, inside=inside), {"messages": []}, "sync", read, None)

    assert assert_same(program)


def test_async_chat_model_streams():
    async def read(run):
        ids, found = Ids(), []
        async for stream in run.messages:
            text = [t async for t in stream.text]
            found.append((stream.node, text, plain(await stream.output, ids)))
        return found

    program = lambda lib: run_v3(with_model(lib, "ainvoke"), {"messages": []}, "async", read, None)  # noqa: E731
    assert assert_same(program)


@pytest.mark.parametrize("how", HOW)
def test_compile_time_transformers(how):
    def sync(run):
        return sorted(run.extensions), list(run.updates), lines(list(run))

    async def asynchronous(run):
        return sorted(run.extensions), [u async for u in run.updates], lines([e async for e in run])

    def program(lib):
        builder = lib.StateGraph(State).add_node("a", lambda s: {"x": 1})
        app = builder.add_edge(lib.START, "a").compile(transformers=[lib.stream.UpdatesTransformer])
        read = sync if how == "sync" else asynchronous
        custom = [lib.stream.CustomTransformer]
        return run_v3(app, INPUT, how, read, config=None, transformers=custom)

    assert assert_same(program)


def test_pregel_stream_transformers():
    def program(lib):
        app = low_level(lib)
        app = type(app)(
            nodes=app.nodes if lib.name == "langgraph" else app.given_nodes,
            channels={k: v for k, v in app.channels.items() if not k.startswith("__")},
            input_channels="a",
            output_channels="b",
            stream_transformers=[lib.stream.UpdatesTransformer],
        )
        return run_v3(app, 3, "sync", lambda run: (list(run.updates), run.output), None)

    assert assert_same(program)[0]  # (the updates the graph's transformer projects)


def test_a_v3_run_inside_a_node_sees_its_own_scope():
    """A node streams another graph with v3: its projections hold that graph's own
    events (their namespace is the calling task's)."""

    def program(lib):
        seen = {}
        inner = lib.StateGraph(State).add_node("i", lambda s: {"x": s["x"] + 1})
        inner = inner.add_edge(lib.START, "i").compile()

        def call(state):
            run = inner.stream_events({"items": [], "x": 1}, version="v3")
            seen["values"], seen["output"] = list(run.values), run.output
            return {"x": seen["output"]["x"]}

        app = lib.StateGraph(State).add_node("call", call).add_edge(lib.START, "call").compile()
        return run_v3(app, INPUT, "sync", lambda run: lines(list(run)), None), seen

    assert assert_same(program)[1]["output"]["x"] == 2


def test_a_graph_run_twice_by_one_task_is_no_subgraph():
    """A node that runs a graph a second time gets the namespace ``[..., "n:<id>", "1"]``:
    no lifecycle event announces it (graphkit's announced a subgraph named "1", never
    ended)."""

    def program(lib):
        inner = lib.StateGraph(State).add_node("i", lambda s: {"x": 1})
        inner = inner.add_edge(lib.START, "i").compile()

        def twice(state):
            inner.invoke(INPUT)
            return inner.invoke(INPUT)

        app = lib.StateGraph(State).add_node("n", twice).add_edge(lib.START, "n").compile()
        return run_v3(app, INPUT, "sync", lambda run: plain(list(run.lifecycle), Ids()), None)

    assert [payload["event"] for payload in assert_same(program)] == ["started", "completed"]


# -- a transformer that raises, a run that ends inside a subgraph ---------------------------


def raising(lib: Any, where: str) -> Any:
    """A transformer raising once from ``process`` (on the run's second "values" event, or
    on the first event below a child's scope: ``where="below"``) or from ``finalize``."""

    class Raising(lib.stream.StreamTransformer):
        broke = False  # (once a run: a second error must not stand in for the first)

        def init(self):
            self.values = 0
            return {}

        def process(self, event):
            below = len(event["params"]["namespace"]) > len(self.scope) + 1
            self.values += event["method"] == "values"
            due = self.values == 2 if where == "process" else below and where == "below"
            if Raising.broke or not due:
                return True
            Raising.broke = True
            raise ValueError(f"transformer broke in {where}")

        def finalize(self):
            if where == "finalize":
                raise ValueError("transformer broke in finalize")

    return Raising


def _after_an_error(run: Any, first: Any) -> Any:
    """What each projection gives once ``first`` (a reader) met the run's error: its queued
    items then the error (or its end), and ``output`` raising it."""

    def read(reader: Any) -> Any:
        got: list[Any] = []
        try:
            got.extend(reader)
        except ValueError as error:
            return plain(got, Ids()), str(error)
        return plain(got, Ids()), None

    others = [iter(run.updates), iter(run.lifecycle)]
    seen = [read(first), *(read(reader) for reader in others)]
    try:
        output = run.output
    except ValueError as error:
        output = str(error)
    return seen, output


@pytest.mark.parametrize("where", ["process", "finalize", "below"])
def test_a_transformer_that_raises_fails_the_run(where):
    """graphkit left the graph running after a transformer's error (the next read ran it
    on, and ``output`` returned the state), and forgot a ``finalize`` error once raised."""

    def program(lib):
        history: list[str] = []
        app = nested(lib)
        transformers = [lib.stream.UpdatesTransformer, raising(lib, where)]
        run = app.stream_events(INPUT, THREAD, version="v3", transformers=transformers)
        seen = _after_an_error(run, iter(run.values))
        for snapshot in app.get_state_history(THREAD):
            history.append(str(snapshot.next))
        return seen, history

    seen, _ = assert_same(program)
    assert seen[1].startswith("transformer broke")


def test_an_async_transformer_that_raises_fails_the_run():
    def program(lib):
        app = nested(lib)

        async def read(run):
            got = []
            try:
                async for event in run:
                    got.append(event["method"])
            except ValueError as error:
                got.append(str(error))
            try:
                output = await run.output()
            except ValueError as error:
                output = str(error)
            return got, output

        transformers = [raising(lib, "process")]
        return run_v3(app, INPUT, "async", read, transformers=transformers)

    assert assert_same(program)[1] == "transformer broke in process"


@pytest.mark.parametrize("how", ["abort", "fail"])
def test_subgraphs_running_when_the_run_ends(how):
    """Aborted inside a subgraph, or failed there by a transformer: each subgraph still
    running gets a last lifecycle event (completed / failed) and its handle that status
    (graphkit's stayed "started")."""

    def program(lib):
        transformers = [raising(lib, "below")] if how == "fail" else []
        run = nested(lib).stream_events(INPUT, THREAD, version="v3", transformers=transformers)
        lifecycle, subgraphs, seen = iter(run.lifecycle), iter(run.subgraphs), []
        try:
            for payload in lifecycle:
                seen.append(payload)
                if len(payload["namespace"]) == 2:
                    run.abort()
        except ValueError as error:
            seen.append(str(error))
        try:
            handles = [(h.status, h.error) for h in subgraphs]
        except ValueError as error:
            handles = [str(error)]
        return plain(seen, Ids()), handles

    assert assert_same(program)
