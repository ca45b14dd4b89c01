"""The window instance, the MIP of DESIGN §4, its backends and the baseline policies.

Pure Python: no I/O beyond JSON text, no DuckDB, no Prefect.
"""

POLICIES = ("mip", "greedy", "fifo", "optimus")
SOLVERS = ("auto", "columns", "gurobi", "highs")
