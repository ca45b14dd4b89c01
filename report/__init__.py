"""The html report of a run (DESIGN §8): one self-contained `report.html` with plotly charts."""
