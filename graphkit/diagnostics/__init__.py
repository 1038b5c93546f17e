"""What graphkit says when something is wrong, kept out of the loop it guards.

The runtime decides *that* a write, a graph, a thread or a config is wrong; the
functions here say *what* was wrong, where (node, edge, channel, step) and how to fix
it, and check a declared graph before it compiles. Reading the core, a call such as
``diagnose.unknown_channel(...)`` is all you need to see (each core module imports
its area's module as ``diagnose``); ``docs/bad-input.md`` shows the messages in
context. Nothing here imports the runtime.
"""
