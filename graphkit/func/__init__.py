"""LangGraph's functional API: ``@entrypoint`` makes a function a workflow (a one-node
``Pregel`` graph), ``@task`` makes a function whose calls inside it are tasks of the
running superstep, with futures. Each call shows in the records, tables and debugger
as a task of kind ``"call"``.

>>> from graphkit.func import entrypoint, task
>>> @task
... def shout(text: str) -> str:
...     return text.upper()
>>> @entrypoint()
... def greet(name: str) -> str:
...     return shout(f"hello {name}").result() + "!"
>>> greet.invoke("ada")
'HELLO ADA!'
>>> list(greet.stream("ada"))
[{'shout': 'HELLO ADA'}, {'greet': 'HELLO ADA!'}]
>>> [(task.node, task.kind) for task in greet.trace("ada").step(0).plan.tasks]
[('greet', 'pull')]
"""

from graphkit.func.entrypoint import entrypoint
from graphkit.func.task import TaskFunction, task

__all__ = ["TaskFunction", "entrypoint", "task"]
