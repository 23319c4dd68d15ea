"""Per-study views: figures and what-if panels built on vcperf.plotting and vcperf.widgets."""
