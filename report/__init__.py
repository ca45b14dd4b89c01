"""The html report of a run (DESIGN §8): KPI table and matplotlib charts (`report.html`)."""
