"""The vMotion study's facade: its model on the Oracle test bed at the calibration (a named VM's migration,
pre-copy and migration of any VM with vMotion's printed settings), the one module of the study that fills
``params=None`` (:func:`vcperf.vmotion.calibrate`, imported: never looked up in a registry).
"""

from __future__ import annotations

from vcperf import _validate as v
from vcperf.vmotion.calibration import calibrate
from vcperf.vmotion.memory import DEFAULT_SDPS_FRACTION, PrecopyResult, precopy
from vcperf.vmotion.migration import Migration, migrate
from vcperf.vmotion.params import Params
from vcperf.vmotion.targets import migrate_workload_at
from vcperf.vmotion.testbed import settings, testbed_link_bps, testbed_vmknics


def _calibrated(params) -> Params:
    """``params`` checked, or the calibration for None."""
    return calibrate() if params is None else v.instance("params", params, Params, "a vcperf.vmotion.Params or None")


def migrate_workload(name: str, release: str, link_bps=None, *, params: Params | None = None) -> Migration:
    """:func:`~vcperf.vmotion.migrate` for a named VM of :func:`workloads` on the Oracle test bed.

    Parameters
    ----------
    name : str
        A VM of :func:`workloads`: Table 1's ``"typical"``, ``"medium"``, ``"large"``,
        ``"very_large"``, ``"monster"``, ``"large_1tb"`` (Figures 6-8) or ``"typical_fresh"``
        (Figures 5 and 10: Test 1's freshly booted typical VM, its zero pages not sent).
    release : {"6.7", "7.0u1"}
    link_bps : float or array_like, optional
        Aggregate vMotion line rate (bit/s), > 0; default the test bed's (:func:`testbed_link_bps`).
    params : Params, optional
        Default: the calibrated parameters (:func:`vcperf.vmotion.calibrate`).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> m67, m70 = vm.migrate_workload("typical", "6.7"), vm.migrate_workload("typical", "7.0u1")
    >>> bool(m70.migration_time_s < m67.migration_time_s)
    True

    References
    ----------
    C. Clark et al., "Live Migration of Virtual Machines", NSDI 2005 (iterative pre-copy).
    """
    return migrate_workload_at(name, release, link_bps, _calibrated(params))


def precopy_testbed(memory_bytes, dirty_rate_bytes_per_s, link_bps=None, working_set_bytes=None, vcpus=None,
                    release="7.0u1", max_rounds=None, sdps: bool = True,
                    sdps_fraction: float = DEFAULT_SDPS_FRACTION, swapped_bytes=0.0, *,
                    params: Params | None = None, **transfer_kw) -> PrecopyResult:
    """:func:`~vcperf.vmotion.precopy` on the Oracle test bed with vMotion's printed settings.

    For ``vcperf sweep`` and quick looks: ``link_bps`` defaults to the test bed's 4 x 40 GbE
    (:func:`testbed_link_bps`) and ``n_vmknics`` to its 4 vmknics.

    Parameters
    ----------
    memory_bytes, dirty_rate_bytes_per_s, working_set_bytes, vcpus, release, max_rounds, sdps, sdps_fraction, \
swapped_bytes
        As in :func:`~vcperf.vmotion.precopy` (bytes, bytes/s, vCPUs).
    link_bps : float or array_like, optional
        Aggregate vMotion line rate (bit/s), > 0; default the test bed's.
    params : Params, optional
        Default: the calibrated parameters (:func:`vcperf.vmotion.calibrate`).
    **transfer_kw
        Passed to :func:`~vcperf.vmotion.precopy` (``n_vmknics`` defaults to the test bed's).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> bool(vm.precopy_testbed(64 * 2**30, 1e9).converged)
    True

    References
    ----------
    C. Clark et al., "Live Migration of Virtual Machines", NSDI 2005 (iterative pre-copy).
    """
    transfer_kw.setdefault("n_vmknics", testbed_vmknics())
    return precopy(memory_bytes, dirty_rate_bytes_per_s, testbed_link_bps() if link_bps is None else link_bps,
                   working_set_bytes, vcpus, release, params=_calibrated(params), settings=settings(),
                   max_rounds=max_rounds, sdps=sdps, sdps_fraction=sdps_fraction, swapped_bytes=swapped_bytes,
                   **transfer_kw)


def migrate_testbed(memory_bytes, vcpus, working_set_bytes, baseline_tps, release="7.0u1",
                    link_bps=None, *, params: Params | None = None, **precopy_kw) -> Migration:
    """:func:`~vcperf.vmotion.migrate` on the Oracle test bed with vMotion's printed settings (for ``vcperf sweep``).

    Parameters
    ----------
    memory_bytes, vcpus, working_set_bytes, baseline_tps, release
        As in :func:`~vcperf.vmotion.migrate` (bytes, vCPUs, bytes, transactions/s).
    link_bps : float or array_like, optional
        Aggregate vMotion line rate (bit/s), > 0; default the test bed's 4 x 40 GbE.
    params : Params, optional
        Default: the calibrated parameters (:func:`vcperf.vmotion.calibrate`).
    **precopy_kw
        As in :func:`~vcperf.vmotion.migrate` (``n_vmknics`` defaults to the test bed's 4).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> m = vm.migrate_testbed(64 * 2**30, 12, 25 * 2**30, 4500.0, "6.7")
    >>> bool(0 < m.average_loss < 1)
    True

    References
    ----------
    C. Clark et al., "Live Migration of Virtual Machines", NSDI 2005 (iterative pre-copy).
    """
    precopy_kw.setdefault("n_vmknics", testbed_vmknics())
    return migrate(memory_bytes, vcpus, working_set_bytes, baseline_tps, release,
                   testbed_link_bps() if link_bps is None else link_bps, params=_calibrated(params),
                   settings=settings(), **precopy_kw)
