"""Trace sources: the synthetic generator, the Pollux and Philly importers, the feed columns
and the truth file they write. Plain Python with numpy and pyarrow: no DuckDB, no solver (the
one exception is the model's default rescale time, `solver.instance.DEFAULT_RESCALE_SECONDS`)."""
