"""Everything a person sees: Bokeh figure builders, regime annotations and the explorer widget.

The only package of flushsim that imports bokeh and ipywidgets (DESIGN.md); the core never
imports it, so `import flushsim` stays light.
"""

from . import figures, regimes, replay

__all__ = ["Explorer", "figures", "regimes", "replay"]


def __getattr__(name: str):
    # The explorer pulls in ipywidgets and jupyter_bokeh: load it only when asked for.
    if name == "Explorer":
        from .explorer import Explorer

        return Explorer
    raise AttributeError(name)
