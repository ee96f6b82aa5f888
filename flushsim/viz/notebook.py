"""Loading BokehJS into a notebook or Voilà page, for flushsim's figures.

`output_notebook()` is bokeh's, with two differences that make a page ready sooner:

- only the BokehJS bundles flushsim's figures use (`bokeh`, `bokeh-widgets`: 1.6 MB) instead of
  all five (3.9 MB; the other three are WebGL, DataTable and MathJax). Bokeh puts each bundle
  in the page twice, once per MIME type, so a Voilà page shrinks from 8.4 to 3.6 MB;
- flushsim's BokehJS patches (`figures.PAGE_PATCHES_JS`) are installed right after, so they are
  in place for the first paint of the first document, not only once a player starts.

Figures that need another bundle (a DataTable, TeX labels, WebGL) load it with bokeh's own
`bokeh.io.output_notebook()`; tests/test_viz.py checks that flushsim's figures need none.
"""

from __future__ import annotations

from bokeh.io import output_notebook as _bokeh_output_notebook
from bokeh.resources import Resources

from .player import PAGE_PATCHES_JS

BUNDLES = ("bokeh", "bokeh-widgets")


def output_notebook(*, hide_banner: bool = True, load_timeout: int = 5000) -> None:
    """Load BokehJS (the bundles in BUNDLES, inline or from the CDN as BOKEH_RESOURCES says).

    `load_timeout` is in milliseconds, as in bokeh.
    """
    # Here, not at the top: `import flushsim.viz` (the CLI's report) need not load IPython.
    from IPython.display import Javascript, display

    _bokeh_output_notebook(
        Resources(components=list(BUNDLES)), hide_banner=hide_banner, load_timeout=load_timeout
    )
    display(Javascript(PAGE_PATCHES_JS))
