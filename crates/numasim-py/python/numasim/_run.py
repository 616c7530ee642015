"""``numasim.run``: a path, TOML text or a dict in, a :class:`Result` out."""

from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Union

from . import _native
from ._result import Result

Config = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def _toml_value(v: Any) -> str:
    """A Python value as a TOML value (the subset experiment files use)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        escaped = v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML: {v!r}")


def _key(k: str) -> str:
    if k and all(c.isalnum() or c in "_-" for c in k):
        return k
    return _toml_value(str(k))


def to_toml(config: Mapping[str, Any]) -> str:
    """A dict (tables as nested dicts) as TOML text: top-level values first, then tables."""
    lines = []
    tables = []
    for k, v in config.items():
        if isinstance(v, Mapping):
            tables.append((k, v))
        else:
            lines.append(f"{_key(k)} = {_toml_value(v)}")
    for name, table in tables:
        lines.append(f"[{_key(name)}]")
        for k, v in table.items():
            lines.append(f"{_key(k)} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"


def run(
    config: Config,
    *,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    set: Optional[Mapping[str, Any]] = None,
    force: bool = False,
    threads: Optional[int] = None,
    base_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
) -> Result:
    """Runs an experiment like ``numasim run`` and returns its :class:`Result`.

    ``config`` is a path to an experiment TOML, TOML text (anything containing a newline or
    ``=``), or a dict. ``set`` holds dotted-key overrides (``{"workload.scale": 22}``), applied and
    checked exactly like ``--set``. ``out`` defaults to ``results/<name>``; an existing directory
    is replaced only with ``force``. Relative paths inside text or dict configs (machine files,
    traces) resolve against ``base_dir`` (default: the working directory). Errors raise
    :class:`numasim.NumasimError` with the CLI's message.
    """
    sets = [f"{k}={_toml_value(v)}" for k, v in (set or {}).items()]
    kwargs = dict(sets=sets, out=None if out is None else os.fspath(out), force=force, threads=threads)
    if isinstance(config, Mapping):
        kwargs.update(text=to_toml(config), base_dir=os.fspath(base_dir or os.getcwd()))
    elif isinstance(config, str) and ("\n" in config or "=" in config):
        kwargs.update(text=config, base_dir=os.fspath(base_dir or os.getcwd()))
    else:
        kwargs.update(path=os.fspath(config))
    return Result(_native.run(**kwargs))
