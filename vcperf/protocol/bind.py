"""The protocol functions bound to one study: what a study's ``validation`` module exposes, with no
hand-written wrapper per study."""

from __future__ import annotations

from typing import NamedTuple

from vcperf import studies
from vcperf.protocol.ledger import fidelity_rows, parameter_table
from vcperf.protocol.loo import leave_one_out
from vcperf.protocol.targets import predict


class StudyFunctions(NamedTuple):
    """The four shared protocol functions of one study."""

    predict: object
    leave_one_out: object
    fidelity_rows: object
    parameter_table: object


def study_functions(study: str, module_name: str) -> StudyFunctions:
    """:func:`~vcperf.protocol.targets.predict`, :func:`~vcperf.protocol.loo.leave_one_out`,
    :func:`~vcperf.protocol.ledger.fidelity_rows` and :func:`~vcperf.protocol.ledger.parameter_table`
    bound to ``study``, documented and owned by ``module_name`` (the study's ``validation`` module).

    Examples
    --------
    >>> from vcperf.protocol import study_functions
    >>> fns = study_functions("contentlib2015", "vcperf.contentlib.validation")
    >>> fns.predict.__name__
    'predict'
    """
    if study not in studies.STUDIES:
        raise ValueError(f"study must be one of {list(studies.STUDIES)}; got {study!r}")

    def predict_(params, keys=None) -> dict:
        return predict(study, params, keys)

    def leave_one_out_():
        return leave_one_out(study)

    def fidelity_rows_() -> list:
        return fidelity_rows(study)

    def parameter_table_():
        return parameter_table(study)

    docs = {
        predict_: f"""Model value (SI) of each target key of {study} under ``params``.

        Parameters
        ----------
        params : Params
            The study's calibrated parameters (``calibrate()``).
        keys : iterable of str, optional
            Target keys (``targets()``); default all.

        Returns
        -------
        dict
            key -> float, SI units (:func:`vcperf.protocol.predict`).
        """,
        leave_one_out_: f"""Leave-one-out of every fitted number of {study} (:func:`vcperf.protocol.leave_one_out`):
        a DataFrame, one row per fit target.""",
        fidelity_rows_: f"""The ledger rows of {study} (:func:`vcperf.protocol.fidelity_rows`).""",
        parameter_table_: f"""Calibrated parameters of {study} with unit, meaning, 90 % interval and the
        rows each is fitted from (:func:`vcperf.protocol.parameter_table`).""",
    }
    for fn, doc in docs.items():
        fn.__name__ = fn.__qualname__ = fn.__name__.rstrip("_")
        fn.__module__ = module_name
        fn.__doc__ = doc
    return StudyFunctions(predict_, leave_one_out_, fidelity_rows_, parameter_table_)
