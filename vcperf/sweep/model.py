"""Which functions a sweep may evaluate: public model functions of the vcperf package, by dotted path.

A Dask worker re-imports the model from its path, so the path must resolve to the very function given;
modules that run notebooks, write files or draw are not models.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable

__all__ = ["resolve_model"]

# Modules whose functions are not models (they run notebooks, write files or draw).
_NOT_MODELS = ("vcperf.cli", "vcperf.sweep", "vcperf.regenerate", "vcperf.report", "vcperf.plotting",
               "vcperf.widgets", "vcperf.views", "vcperf.params")



def resolve_model(model: str | Callable) -> tuple[str, Callable]:
    """The dotted path and the function of a public model function inside the vcperf package.

    Parameters
    ----------
    model : str or callable
        ``"vcperf.network.transfer_time_s"``, or the function itself.

    Returns
    -------
    (str, callable)
        Its dotted path (what Dask workers import) and the function.

    Raises
    ------
    ValueError
        If the path is not ``vcperf.<module>.<function>``, names a private or non-model module or
        function, or does not resolve to a plain function defined in vcperf.
    """
    if callable(model) and not isinstance(model, str):
        path = f"{getattr(model, '__module__', '')}.{getattr(model, '__qualname__', '')}"
    elif isinstance(model, str):
        path = model.strip()
    else:
        raise ValueError(f"model must be a dotted path such as vcperf.network.transfer_time_s; got {model!r}")
    module_name, _, func_name = path.rpartition(".")
    if not module_name.startswith("vcperf.") or not func_name:
        raise ValueError(f"model must be a function inside the vcperf package (vcperf.<module>.<function>); "
                         f"got {path!r}")
    if any(part.startswith("_") for part in path.split(".")):
        raise ValueError(f"model must be a public function (no _private module or name); got {path!r}")
    if any(module_name == m or module_name.startswith(m + ".") for m in _NOT_MODELS):
        raise ValueError(f"model must be a model function, not from {module_name} (cli, plotting, views, ... "
                         f"are not models); got {path!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"model module {module_name!r} cannot be imported: {err}") from None
    func = getattr(module, func_name, None)
    if not inspect.isfunction(func) or not func.__module__.startswith("vcperf"):
        raise ValueError(f"model {path!r} is not a function defined in the vcperf package")
    if callable(model) and not isinstance(model, str) and func is not model:
        raise ValueError(f"model {path!r} does not resolve to the function given")
    return path, func
