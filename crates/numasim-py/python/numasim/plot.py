"""Plotting helpers: each returns a matplotlib Figure (no pyplot state, so they work headless
and in notebooks alike). Colours are the report's Okabe-Ito palette."""

from __future__ import annotations

from typing import Iterable, Optional, Sequence, Union

from ._machine import Machine
from ._result import Result

OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"]

# Each access class's colour in the HTML report (numasim-report's palette.rs, `class_colour`;
# a Rust test checks this table against it), so a class looks the same in both.
CLASS_COLOURS = {"local": "#009E73", "remote_1hop": "#56B4E9", "remote_2hop": "#0072B2", "remote_3hop": "#CC79A7", "remote_4hop": "#E69F00", "remote_5hop": "#F0E442", "pool": "#D55E00", "block_transfer": "#000000"}
_REMOTE_CYCLE = ["#56B4E9", "#0072B2", "#CC79A7", "#E69F00", "#F0E442"]


def class_order(c: str):
    """The report's order of access classes: local, remote by hops, pool, block transfer, others."""
    if c == "local":
        return (0, c)
    if c.startswith("remote_") and c.endswith("hop"):
        h = c[len("remote_"):-len("hop")]
        return (1 + min(int(h), 50), c) if h.isdigit() else (60, c)
    if "pool" in c:
        return (100, c)
    if "block" in c:
        return (110, c)
    return (200, c)


def class_colour(c: str) -> str:
    """The report's colour of an access class."""
    if c in CLASS_COLOURS:
        return CLASS_COLOURS[c]
    rank = class_order(c)[0]
    if 1 <= rank <= 60:
        return _REMOTE_CYCLE[max(rank - 2, 0) % len(_REMOTE_CYCLE)]
    return {0: CLASS_COLOURS["local"], 100: CLASS_COLOURS["pool"], 110: CLASS_COLOURS["block_transfer"]}.get(rank, "#969696")


def _figure(figsize=(7, 4)):
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    return fig, fig.add_subplot()


def _as_list(results: Union[Result, Sequence[Result]]):
    return [results] if isinstance(results, Result) else list(results)


def access_classes(results: Union[Result, Sequence[Result]]):
    """Stacked shares of LLC misses by access class (local, remote by hops, pool), one bar per run
    (the report's "Where accesses go")."""
    runs = _as_list(results)
    classes = sorted({c for r in runs for c in r.summary["totals"]["by_class"]}, key=class_order)
    fig, ax = _figure()
    bottoms = [0.0] * len(runs)
    for c in classes:
        shares = []
        for r in runs:
            by = r.summary["totals"]["by_class"]
            total = max(sum(by.values()), 1)
            shares.append(100.0 * by.get(c, 0) / total)
        ax.bar([r.name for r in runs], shares, bottom=bottoms, label=c, color=class_colour(c))
        bottoms = [b + s for b, s in zip(bottoms, shares)]
    ax.set_ylabel("LLC misses (%)")
    ax.set_title("Where accesses go")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def phases(result: Result, columns: Union[str, Iterable[str]] = "local_fraction"):
    """One or more phases.csv columns against the phase index."""
    cols = [columns] if isinstance(columns, str) else list(columns)
    df = result.phases()
    fig, ax = _figure()
    for k, c in enumerate(cols):
        ax.plot(df["phase"], df[c], label=c, color=OKABE_ITO[k % len(OKABE_ITO)], marker="o", markersize=3)
    ax.set_xlabel("phase")
    ax.set_ylabel(cols[0] if len(cols) == 1 else "value")
    if len(cols) > 1:
        ax.legend()
    ax.set_title(result.name)
    return fig


def placement(result: Result):
    """Pages per memory node at the end of each phase, stacked (the report's page placement)."""
    df = result.pages_per_node()
    nodes = [c for c in df.columns if c != "phase"]
    fig, ax = _figure()
    ax.stackplot(df["phase"], *[df[c] for c in nodes], labels=[c.removeprefix("pages_") for c in nodes],
                 colors=[OKABE_ITO[k % len(OKABE_ITO)] for k in range(len(nodes))])
    ax.set_xlabel("phase")
    ax.set_ylabel("pages")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def latency_heatmap(machine: Union[Machine, str]):
    """Unloaded load latency (ns) from every socket to every memory node."""
    m = machine if isinstance(machine, Machine) else Machine(machine)
    fig, ax = _figure((max(4, 0.5 * len(m.memory_nodes) + 2), max(3, 0.3 * len(m.sockets) + 1)))
    im = ax.imshow(m.latency_ns, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(m.memory_nodes)), m.memory_nodes, rotation=90)
    ax.set_yticks(range(len(m.sockets)), m.sockets)
    ax.set_xlabel("memory node")
    ax.set_ylabel("socket")
    fig.colorbar(im, ax=ax, label="latency (ns)")
    ax.set_title(m.name)
    return fig


def sweep(table, x: str, y: str, hue: Optional[str] = None):
    """A collected sweep (``numasim.collect``): ``y`` against ``x``, one line per ``hue`` value."""
    fig, ax = _figure()
    groups = [(None, table)] if hue is None else list(table.groupby(hue, sort=True))
    for k, (key, g) in enumerate(groups):
        g = g.sort_values(x)
        ax.plot(g[x], g[y], marker="o", color=OKABE_ITO[k % len(OKABE_ITO)],
                label=None if hue is None else f"{hue}={key}")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if hue is not None:
        ax.legend()
    return fig
