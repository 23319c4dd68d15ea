"""`make bench`: run.py measures; report.py writes the tables (the performance block of docs/PERFORMANCE.md)."""
