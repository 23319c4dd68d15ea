"""`make bench`: run.py measures; report.py writes the tables (README performance block)."""
