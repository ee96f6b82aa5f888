"""The seeds' articles next to flushsim: one table per experiment, "the article's number vs ours".

Each table is a polars DataFrame with the columns

- `quantity`: what is compared, with its unit and where it comes from;
- `article`: the number the article prints (float; NaN where the article states the claim in
  words only, and the rule is then a bound that does not use it);
- `flushsim`: the same quantity measured on a flushsim run or computed by `flushsim.ssd`;
- `tolerance`: the acceptance rule, in words ("±25 %", "exact", "≥ 4,915", ...);
- `ok`: whether `flushsim` satisfies the rule, computed from the two numbers and the rule.

The lesson notebooks show these tables and assert that every row is ok, so a model change that
breaks a reproduction fails CI. Tolerances are the seeds' own (the tests under tests/ use the
same ones); a rule that is not a plain "±x %" of the article's number says why in the row.

One module per seed (`seed000` to `seed004`, each naming its article and presets), the rules in
`tolerances`; every public name is re-exported here (`reproductions.seed001_table(run)`).
"""

from .seed000 import (
    SEED000_ARTICLE,
    SEED000_NOT_REPRODUCED,
    SEED000_VARIANTS,
    SEED000_WARM_UP_S,
    seed000_iostat,
    seed000_runs,
    seed000_scenarios,
    seed000_stats,
    seed000_table,
    seed000_whatif_table,
    with_device,
)
from .seed001 import (
    SEED001_ARTICLE,
    seed001_burst,
    seed001_table,
)
from .seed002 import (
    SEED002_FAST_SECONDS,
    SEED002_NOT_REPRODUCED,
    SEED002_SETUPS,
    SEED002_THREADS,
    SEED002_WARM_UP_S,
    seed002_grid,
    seed002_runs,
    seed002_seconds,
    seed002_stats,
    seed002_table,
)
from .seed003 import (
    SEED003_ARTICLE,
    SEED003_FAST_SECONDS,
    SEED003_SIZES,
    SEED003_WARM_UP_S,
    seed003_exercises,
    seed003_io_capacity_runs,
    seed003_lru_flush_size_runs,
    seed003_lru_flush_size_table,
    seed003_preset,
    seed003_run_ahead,
    seed003_seconds,
    seed003_stats,
    seed003_table,
)
from .seed004 import (
    HOT_ROWS_ARTICLE,
    HOT_ROWS_STEPS,
    HOT_ROWS_WARM_UP_S,
    SEED004_ARTICLE,
    seed004_arithmetic_table,
    seed004_fill_models,
    seed004_hot_rows,
    seed004_hot_rows_table,
    seed004_idle_rates,
    seed004_idle_table,
)
from .tolerances import (
    SCHEMA,
    Tolerance,
    absolute,
    at_least,
    at_most,
    below,
    between,
    comparison_table,
    exact,
    relative,
)

__all__ = [
    "HOT_ROWS_ARTICLE",
    "HOT_ROWS_STEPS",
    "HOT_ROWS_WARM_UP_S",
    "SCHEMA",
    "SEED000_ARTICLE",
    "SEED000_NOT_REPRODUCED",
    "SEED000_VARIANTS",
    "SEED000_WARM_UP_S",
    "SEED001_ARTICLE",
    "SEED002_FAST_SECONDS",
    "SEED002_NOT_REPRODUCED",
    "SEED002_SETUPS",
    "SEED002_THREADS",
    "SEED002_WARM_UP_S",
    "SEED003_ARTICLE",
    "SEED003_FAST_SECONDS",
    "SEED003_SIZES",
    "SEED003_WARM_UP_S",
    "SEED004_ARTICLE",
    "Tolerance",
    "absolute",
    "at_least",
    "at_most",
    "below",
    "between",
    "comparison_table",
    "exact",
    "relative",
    "seed000_iostat",
    "seed000_runs",
    "seed000_scenarios",
    "seed000_stats",
    "seed000_table",
    "seed000_whatif_table",
    "seed001_burst",
    "seed001_table",
    "seed002_grid",
    "seed002_runs",
    "seed002_seconds",
    "seed002_stats",
    "seed002_table",
    "seed003_exercises",
    "seed003_io_capacity_runs",
    "seed003_lru_flush_size_runs",
    "seed003_lru_flush_size_table",
    "seed003_preset",
    "seed003_run_ahead",
    "seed003_seconds",
    "seed003_stats",
    "seed003_table",
    "seed004_arithmetic_table",
    "seed004_fill_models",
    "seed004_hot_rows",
    "seed004_hot_rows_table",
    "seed004_idle_rates",
    "seed004_idle_table",
    "with_device",
]
