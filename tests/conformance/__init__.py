"""Differential conformance suite: every case runs on LangGraph (the oracle) and graphkit."""
