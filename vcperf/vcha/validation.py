"""Validation of the VCHA study: the ledger rows, leave-one-out, the parameter table and
``predict``, i.e. the shared protocol functions (:mod:`vcperf.protocol`) bound to ``vcha2016``.

The notebooks' paper-vs-model tables are :func:`vcperf.fidelity.paper_vs_model` with
``"vcha2016"``.
"""

from __future__ import annotations

from vcperf import protocol
from vcperf.vcha.params import STUDY

#: The shared protocol functions of the study (:class:`vcperf.protocol.StudyFunctions`).
FUNCTIONS = protocol.StudyFunctions(STUDY)
predict, leave_one_out = FUNCTIONS.predict, FUNCTIONS.leave_one_out
fidelity_rows, parameter_table = FUNCTIONS.fidelity_rows, FUNCTIONS.parameter_table
