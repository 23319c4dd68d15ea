"""Validation of the VCHA study: the ledger rows, leave-one-out and the parameter table (the shared
implementations of :mod:`vcperf.protocol`), and paper-vs-model tables for the notebooks."""

from __future__ import annotations

import sys

from vcperf import fidelity, protocol


def _study():
    return sys.modules["vcperf.vcha"]


def fidelity_rows() -> list:
    """The study's ledger rows (:func:`vcperf.protocol.fidelity_rows`)."""
    return protocol.fidelity_rows(_study())


def leave_one_out():
    """Leave-one-out of every fitted target, run groups held out together (:func:`vcperf.protocol.leave_one_out`)."""
    return protocol.leave_one_out(_study())


def parameter_table():
    """Calibrated parameters: name, value, unit, meaning, identifiable, fitted_from."""
    return protocol.parameter_table(_study())


def paper_vs_model(source: str | None = None, kinds=None):
    """The study's ledger rows in the paper's printed units (:func:`vcperf.fidelity.paper_vs_model`),
    optionally only those whose data table or locator starts with ``source`` (e.g. ``"Table 5"``)."""
    return fidelity.paper_vs_model(_study().STUDY, source, kinds)
