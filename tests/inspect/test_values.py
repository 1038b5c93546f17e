"""show(): the one readable, deterministic text of a run value."""

from __future__ import annotations

import re

import pytest

from graphkit.channels import EMPTY
from graphkit.inspect.values import (
    barrier_parts,
    branch_target,
    is_internal,
    is_message,
    join_names,
    show,
    show_error,
)


class Message:
    """A stand-in for a langchain-core message: only ``type`` and ``content``."""

    def __init__(self, type, content, tool_calls=None):
        self.type = type
        self.content = content
        self.tool_calls = tool_calls or []


def test_plain_values_read_like_repr():
    assert show("sunny") == "'sunny'"
    assert show(None) == "None"
    assert show(42) == "42"
    assert show([("user", "hi")]) == "[('user', 'hi')]"
    assert show((1,)) == "(1,)"
    assert show({"a": [1, 2]}) == "{'a': [1, 2]}"


def test_empty_shows_as_empty_and_sets_are_sorted():
    assert show(EMPTY) == "<empty>"
    assert show({"weather", "news", "b"}) == "{'b', 'news', 'weather'}"
    assert show(frozenset()) == "frozenset()"


def test_long_text_is_cut_to_width_with_an_ellipsis():
    assert show("x" * 100, width=10) == "'xxxxxxxx…"
    assert len(show(list(range(10_000)), width=30)) == 30


def test_a_huge_value_is_not_rendered_in_full():
    big = [list(range(100)) for _ in range(10_000)]
    assert show(big, width=40).endswith("…")


def test_newlines_stay_on_one_line():
    class Multiline:
        def __repr__(self):
            return "line one\nline two"

    assert show(Multiline()) == "line one\\nline two"


def test_a_broken_repr_does_not_break_the_view():
    class Broken:
        def __repr__(self):
            raise RuntimeError("no")

    assert show(Broken()) == "<Broken object>"


def test_messages_show_type_and_content_duck_typed():
    assert show(Message("ai", "hello")) == 'ai: "hello"'
    assert show([Message("human", "hi"), Message("ai", "yo")]) == '[human: "hi", ai: "yo"]'
    call = Message("ai", "", [{"name": "get_weather", "args": {"city": "Paris"}}])
    assert show(call) == "ai calls get_weather({'city': 'Paris'})"
    assert (
        show(Message("ai", [{"type": "text", "text": "hi"}]))
        == "ai: [{'type': 'text', 'text': 'hi'}]"
    )
    assert is_message(Message("ai", "x")) and not is_message(Message) and not is_message("ai")


def test_a_tool_call_shows_its_args():
    """An agent asking the same query again and again was invisible: a call showed
    only its tool's name (``→ tool calls: search``)."""
    calls = [
        {"name": "search", "args": {"query": "cats"}, "id": "1"},
        {"name": "search", "args": {"query": "dogs"}, "id": "2"},
    ]
    assert show(Message("ai", "", calls[:1])) == "ai calls search({'query': 'cats'})"
    assert show(Message("ai", "let me look", calls), width=80) == (
        "ai: \"let me look\" calls search({'query': 'cats'}), search({'query': 'dogs'})"
    )
    assert show(Message("ai", "", calls), width=30) == "ai calls search({'query': 'ca…"


def test_a_growing_conversation_shows_its_count_and_newest_messages():
    """Every before → after of a message list read the same (its start, cut at the
    width); a list that does not fit now shows how many messages and the newest."""
    history = [Message("human", "what's the weather in sf?")]
    for turn in range(3):
        call = {"name": "search", "args": {"query": "weather in sf"}, "id": str(turn)}
        history += [Message("ai", "", [call]), Message("tool", "results: nothing useful")]
    texts = [show(history[:n], width=40) for n in range(1, len(history) + 1)]
    assert texts == [
        '[human: "what\'s the weather in sf?"]',
        "[2 messages: …, ai calls search({'query…",
        '[3 messages: …, tool: "results: nothing…',
        "[4 messages: …, ai calls search({'query…",
        '[5 messages: …, tool: "results: nothing…',
        "[6 messages: …, ai calls search({'query…",
        '[7 messages: …, tool: "results: nothing…',
    ]
    assert len(set(texts)) == len(texts)
    # the newest messages that fit whole show too, in their order
    chat = [Message("human", "hi " * 30), Message("ai", "hello"), Message("human", "bye")]
    assert show(chat) == '[3 messages: …, ai: "hello", human: "bye"]'
    # a list that fits shows whole, as before
    assert show(chat[1:]) == '[ai: "hello", human: "bye"]'
    assert show(chat[1:], width=20) == "[2 messages: …, hum…"


def test_only_a_list_of_messages_is_shown_by_count():
    long = "x" * 80
    assert show([long, long]) == "['" + "x" * 57 + "…"
    assert show([Message("ai", long), long]) == '[ai: "' + "x" * 53 + "…"
    assert show((Message("ai", long), Message("ai", "y"))) == '(ai: "' + "x" * 53 + "…"
    assert show({"messages": [Message("ai", long), Message("ai", "y")]}) == (
        "{'messages': [2 messages: …, ai: \"y\"]}"
    )


def test_a_remove_message_shows_the_id_it_removes():
    class Remove(Message):
        def __init__(self, id):
            super().__init__("remove", "")
            self.id = id

    assert show([Remove("m1"), Remove("m2")]) == "[remove ids 'm1', 'm2']"
    assert show([Remove("__remove_all__"), Message("human", "new")]) == (
        '[remove all, human: "new"]'
    )


def test_a_write_of_removals_shows_every_one_while_they_fit():
    # A summariser's [RemoveMessage(<uuid>), RemoveMessage('ai-3')] read
    # [2 messages: …, remove id 'ai-3']: the count form of a long history hid the first.
    class Remove(Message):
        def __init__(self, id):
            super().__init__("remove", "")
            self.id = id

    uuid = "3cede81d-8a74-bb47-7087-1f138119b800"
    assert show([Remove(uuid), Remove("ai-3")]) == f"[remove ids '{uuid}', 'ai-3']"
    three = [Remove(uuid), Remove(uuid.replace("3", "4")), Remove("ai-3")]
    assert show(three) == "[remove 3 ids: …, 'ai-3']"
    assert show(three[1:]) != show(three)
    # where the view knows the messages the write applies to, each removal names its text
    human, ai = Message("human", "she likes boxes"), Message("ai", "reply 3")
    human.id, ai.id = uuid, "ai-3"
    before = [Message("ai", "reply 2"), human, ai]
    assert show([Remove(uuid), Remove("ai-3")], before=before) == (
        '[remove human: "she likes boxes", ai: "reply 3"]'
    )
    assert show([Remove("gone"), Remove("ai-3")], before=before) == (
        "[remove id 'gone', ai: \"reply 3\"]"
    )
    many = [Remove(uuid), Remove("ai-3")] * 2
    assert show(many, before=before) == '[remove 4 messages: …, ai: "reply 3"]'
    assert show(many, before=before, width=70) == (
        '[remove 4 messages: …, human: "she likes boxes", ai: "reply 3"]'
    )


def test_a_history_quotes_every_message_alike():
    # Lesson 06 showed [human: "Hi, I'm Lance.", ai: 'Hello Lance!']: Python's repr
    # switches quotes for a text with an apostrophe, so a history mixed both.
    history = [Message("human", "Hi, I'm Lance."), Message("ai", "Hello Lance!")]
    assert show(history) == '[human: "Hi, I\'m Lance.", ai: "Hello Lance!"]'
    assert show(Message("ai", 'say "hi"\nthen go')) == 'ai: "say \\"hi\\"\\nthen go"'


def test_a_message_text_escapes_what_a_string_escapes():
    # Double quotes came from json.dumps, which leaves a bidi override, a line separator
    # and NEL raw: they reordered or broke the one-line text a str's repr escapes.
    for raw in ("abc\u202edcba", "one\u2028two", "x\x85y", "a\u200bb", "a\x01b\\"):
        assert show(Message("ai", raw)) == f'ai: "{repr(raw)[1:-1]}"'
    assert show(Message("ai", "x" * 10_000), width=12) == 'ai: "xxxxxx…'


def test_real_langchain_core_messages():
    messages = pytest.importorskip("langchain_core.messages")
    assert show(messages.HumanMessage("hi")) == 'human: "hi"'
    assert show([messages.AIMessage("hello")]) == '[ai: "hello"]'
    assert show(messages.RemoveMessage(id="m0")) == "remove id 'm0'"
    history = [messages.HumanMessage("hi " * 30), messages.AIMessage("hello")]
    assert show(history) == '[2 messages: …, ai: "hello"]'


def test_show_error():
    assert show_error(ValueError("boom")) == "ValueError: boom"
    assert show_error(KeyError()) == "KeyError"
    assert show_error(None) == ""


def test_channel_names():
    assert [is_internal(c) for c in ("plan", "__start__", "branch:to:x", "join:a+b:c")] == [
        False,
        True,
        True,
        True,
    ]
    assert branch_target("branch:to:news") == "news"
    assert branch_target("news") is None
    assert barrier_parts("join:a+b+c:d") == (("a", "b", "c"), "d")
    assert barrier_parts("branch:to:d") is None


def test_join_names():
    assert join_names([]) == ""
    assert join_names(["a", "b", "c"]) == "a, b and c"
    assert join_names(["a", "b"], "or") == "a or b"


def test_a_send_shows_its_packet_within_a_cards_width():
    # Three Sends to one node in a card must be told apart by their packets, so the
    # text leaves out the field names that pushed the packet past a card's 40 characters.
    from graphkit import Send

    assert show(Send("generate_joke", {"subject": "cats"})) == (
        "Send('generate_joke', {'subject': 'cats'})"
    )
    assert "'dolp" in show(Send("generate_joke", {"subject": "dolphins"}), width=40)
    assert show(Send("work", 1, timeout=2)).startswith("Send('work', 1, timeout=")
    assert show([Send("a", {"x": 1})]) == "[Send('a', {'x': 1})]"


def test_a_tool_call_packet_shows_the_call_not_the_state():
    """What tools_condition sends ToolNode: the tool a ReAct agent called, and its args,
    which a cut-off dict with the whole state in it hid ("{'__type': 'tool_call_wit…")."""
    from graphkit.types import Send

    call = {"name": "search", "args": {"query": "17 * 23"}, "id": "call-1", "type": "tool_call"}
    packet = {"__type": "tool_call_with_context", "tool_call": call, "state": {"messages": []}}
    assert show(packet) == "tool call search({'query': '17 * 23'})"
    assert show(Send("tools", packet)) == "Send('tools', tool call search({'query': '17 * 23'}))"


def test_langgraphs_own_send_reads_as_graphkits():
    """A thread LangGraph saved keeps LangGraph's Send (a pending __pregel_tasks write,
    as the pending-writes table shows it): it read as its repr,
    "Send(node='tools', arg={'__type': 'tool_call_with_context',…", the call hidden."""
    from langgraph.types import Send as LangGraphSend

    call = {"name": "search", "args": {"q": "owls"}, "id": "c1", "type": "tool_call"}
    packet = {"__type": "tool_call_with_context", "tool_call": call, "state": {}}
    assert show(LangGraphSend("tools", packet)) == "Send('tools', tool call search({'q': 'owls'}))"
    assert show([LangGraphSend("a", {"x": 1})]) == "[Send('a', {'x': 1})]"


def test_a_write_of_removals_with_an_unhashable_id_still_shows():
    # show raised TypeError (unhashable type: 'list') looking such an id up in the state
    class Remove(Message):
        def __init__(self, id):
            super().__init__("remove", "")
            self.id = id

    human = Message("human", "hi")
    human.id = "h-1"
    removals = [Remove(["h-1"]), Remove("h-1")]
    assert show(removals, before=[human]) == "[remove id ['h-1'], human: \"hi\"]"


def test_a_tool_call_is_not_drawn_as_the_arrow_of_a_change():
    """A message's tool call read ``ai: "" → search(...)``, so a change of a message list,
    ``before → after``, had two arrows and looked like two changes."""
    from graphkit.inspect.cards import change_items
    from graphkit.pregel.records import ChannelChange

    asked = [Message("human", "cats?")]
    called = [*asked, Message("ai", "", [{"name": "search", "args": {"q": "cats"}}])]
    change = ChannelChange("messages", asked, called, 1, 2, ("agent",), (called[1:],), "add")
    shown = re.sub(r'title="[^"]*"', "", change_items(change))  # (the versions' tooltip)
    assert shown.count("→") == 1
    assert show(called) == "[human: \"cats?\", ai calls search({'q': 'cats'})]"
