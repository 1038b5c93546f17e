"""graphkit.prebuilt's exports, and graphkit's lazy ones: `import graphkit` stays free of
langchain-core until a prebuilt name is asked for."""

import subprocess
import sys

import pytest

import graphkit
import graphkit.prebuilt

LAZY = ["MessagesState", "ToolNode", "add_messages", "create_react_agent", "tools_condition"]


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_import_graphkit_does_not_import_langchain_core() -> None:
    code = "import sys, graphkit; print(any(m.startswith('langchain') for m in sys.modules))"
    assert run_python(code) == "False"


def test_a_prebuilt_name_imports_it_on_first_use() -> None:
    code = (
        "import sys, graphkit; graphkit.create_react_agent; print('langchain_core' in sys.modules)"
    )
    assert run_python(code) == "True"


def test_the_lazy_names_are_the_prebuilt_ones() -> None:
    for name in LAZY:
        assert name in graphkit.__all__
        assert getattr(graphkit, name) is getattr(graphkit.prebuilt, name)


def test_other_names_are_still_attribute_errors() -> None:
    with pytest.raises(AttributeError, match="AgentState"):
        graphkit.AgentState  # noqa: B018 - prebuilt, but not exported at the top level


def test_prebuilt_exports_exist() -> None:
    for name in graphkit.prebuilt.__all__:
        assert hasattr(graphkit.prebuilt, name), name
