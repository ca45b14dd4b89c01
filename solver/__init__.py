"""The window instance, the MIP of DESIGN §4, its backends and the policies.

Pure Python: no I/O beyond JSON text, no DuckDB, no Prefect; imports none of the project's
other packages. The policy registry and the solver choices are `solver.policies.POLICIES` and
`solver.policies.SOLVERS`.
"""
