"""Example graphs. In an installed graphkit they are ``graphkit.examples``, e.g.
``graphkit trace graphkit.examples.seed:build_graph`` or ``python -m graphkit.examples.seed``."""
