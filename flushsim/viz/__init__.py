"""Everything a person sees: Bokeh figure builders, regime annotations and the explorer widget.

The only package of flushsim that imports bokeh and ipywidgets; the core never imports it, so
`import flushsim` stays light.
"""

from . import figures, regimes, replay
from .notebook import output_notebook

__all__ = ["Explorer", "figures", "output_notebook", "regimes", "replay"]


def __getattr__(name: str):
    # The explorer pulls in ipywidgets and jupyter_bokeh: load it only when asked for.
    if name == "Explorer":
        from .explorer import Explorer

        return Explorer
    raise AttributeError(name)
