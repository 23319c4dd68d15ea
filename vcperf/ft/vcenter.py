"""vCenter Server appliance under FT (seed ``002_1123405df89c1006.txt``, Figures 12-14).

Pure functions: the appliance's vCPUs, the two loads' operation rates and the FT-off browse time
are arguments (``vcperf.ft.testbed()`` reads them from the seed), the three vCenter parameters are
calibrated (``vcperf.ft.calibrate()``).
"""

from __future__ import annotations

import math

import numpy as np

from vcperf import _validate as v
from vcperf.ft.checkpoint import DEFAULT_FT_LINK_BPS, MAX_CHECKPOINT_INTERVAL_S, activity_time_s, check_ft_vcpus
from vcperf.ft.workloads import closed_loop, ft_off_throughput_per_s

#: Largest client population :func:`load_clients` considers.
MAX_LOAD_CLIENTS = 1024
#: vCPU utilization of the appliance under the heavy load without FT. The seed's Load B is the
#: "heavy load" of "hundreds of operations per minute" that reaches "nearly 200": read as the
#: appliance's capacity, its 4 vCPUs (all but) saturated. This fixes the vCPU time per operation,
#: ``HEAVY_LOAD_CPU_UTILIZATION x vcpus / load_b_per_s``, from stated inputs (no fitted parameter);
#: the result hardly depends on the exact value (0.9 to 0.999 move the four numbers by < 1 %).
HEAVY_LOAD_CPU_UTILIZATION = 0.99


def heavy_load_cpu_demand_s(vcpus, load_b_per_s, utilization=HEAVY_LOAD_CPU_UTILIZATION):
    """vCPU seconds per management operation if the heavy load keeps ``vcpus`` vCPUs ``utilization`` busy.

    Utilization law ``U = X D / c``: ``D = U c / X_B`` (seed Figure 12: Load B, ~200 ops/min, 4 vCPUs).

    Parameters
    ----------
    vcpus : int
        vCPUs of the appliance (1..the FT limit).
    load_b_per_s : float
        FT-off throughput of the heavy load, > 0.
    utilization : float
        vCPU utilization at that load, in (0, 1).

    Returns
    -------
    float
        vCPU seconds per operation.

    Examples
    --------
    >>> from vcperf import ft
    >>> round(ft.heavy_load_cpu_demand_s(4, 200 / 60), 3)  # 4 vCPUs at 200 ops/min
    1.188
    """
    c = check_ft_vcpus(vcpus)
    x = v.scalar("load_b_per_s", load_b_per_s, 0.0, math.inf, lo_open=True, hi_open=True)
    u = v.scalar("utilization", utilization, 0.0, 1.0, lo_open=True, hi_open=True)
    return u * c / x


def load_clients(rate_per_s, cpu_s, host_s, vcpus) -> int:
    """Smallest population whose FT-off throughput reaches ``rate_per_s`` (at most 1024).

    Parameters
    ----------
    rate_per_s : float
        Target FT-off throughput, > 0.
    cpu_s, host_s : float
        vCPU demand and host (delay) time per operation, >= 0.
    vcpus : int
        vCPUs of the appliance.

    Returns
    -------
    int

    References
    ----------
    .. [1] M. Reiser, S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing Networks",
       J. ACM 27(2), 1980 (exact MVA, :func:`vcperf.queueing.mva`).

    Examples
    --------
    >>> from vcperf import ft
    >>> ft.load_clients(200 / 60, 1.188, 1.034, 4)
    13
    """
    rate = v.scalar("rate_per_s", rate_per_s, 0.0, math.inf, lo_open=True, hi_open=True)
    cpu = v.scalar("cpu_s", cpu_s, 0.0, v.MAX_DURATION_S)
    host = v.scalar("host_s", host_s, 0.0, v.MAX_DURATION_S)
    c = check_ft_vcpus(vcpus)
    if cpu + host <= 0:
        raise ValueError("cpu_s + host_s must be in (0, inf); got 0")
    x = ft_off_throughput_per_s(MAX_LOAD_CLIENTS, cpu, c, host)
    hit = np.flatnonzero(x >= rate * (1 - 1e-9))
    if hit.size == 0:
        raise ValueError(f"rate_per_s must be below the FT-off capacity {x[-1]:g}/s of {MAX_LOAD_CLIENTS} clients "
                         f"at cpu_s={cpu:g}, host_s={host:g}, vcpus={c}; got {rate:g}")
    return int(hit[0]) + 1


def vcenter_predictions(dirty_rate_bytes_per_s, exchange_rate_per_s, cpu_demand_per_op_s=None, *,
                        checkpoint_interval_s, vcpus, load_a_per_s, load_b_per_s, browse_off_s,
                        ft_link_bps=DEFAULT_FT_LINK_BPS, **link_kw) -> dict:
    """The four vCenter numbers of Figures 12-14 from the vCenter parameters.

    vCenter activity (FT off) dirties ``dirty_rate_bytes_per_s`` of memory and makes
    ``exchange_rate_per_s`` client-visible exchanges per second. Management operations (Figure 12):
    Load A is one client issuing operations back to back (the light load), so its FT-off rate
    fixes the operation time ``1 / rate_A``: ``cpu_demand_per_op_s`` on the appliance's vCPUs, the
    rest at the hosts (a delay). Load B is the heavy load that (all but) saturates the appliance's
    vCPUs (:func:`heavy_load_cpu_demand_s`, the default vCPU demand), modelled as the smallest client
    count whose FT-off throughput reaches the heavy rate. Each operation dirties ``dirty_rate / rate_A`` bytes and makes
    ``exchange_rate / rate_A`` exchanges (:func:`vcperf.ft.closed_loop`). Browsing (Figure 13) and
    restart (Figure 14) are single activities of the same appliance (:func:`vcperf.ft.activity_time_s`)
    with the same dirty rate; browsing makes ``exchange_rate`` serial exchanges per second with the
    browser, while the restart's host traffic is bulk data *received* (its cost is in the dirty
    rate), so only the stun applies to it.

    Parameters
    ----------
    dirty_rate_bytes_per_s : float
        >= 0.
    exchange_rate_per_s : float
        >= 0.
    cpu_demand_per_op_s : float, optional
        In (0, 1 / load_a_per_s]; Load B must stay below the FT-off capacity ``vcpus / cpu``.
        Default: :func:`heavy_load_cpu_demand_s` (Load B at 99 % vCPU).
    checkpoint_interval_s : float
        As in :func:`vcperf.ft.checkpoint_cycle`, > 0.
    vcpus : int
        vCPUs of the appliance (the seed: 4).
    load_a_per_s, load_b_per_s : float
        FT-off operation rates of the light and heavy loads (the seed: 27 and 200 per minute), > 0.
    browse_off_s : float
        FT-off Web Client browse latency (the seed: 1.1 s, an input), > 0.
    ft_link_bps : float
        As in :func:`vcperf.ft.checkpoint_cycle`.
    **link_kw
        FT-link inputs of :func:`vcperf.ft.checkpoint_cycle` (``ft_ack_rtt_s``, ``ft_link_loss``,
        ``n_ft_vms``).

    Returns
    -------
    dict
        ``ratio_a``, ``ratio_b`` (FT-on/off throughput), ``browse_on_s``, ``restart_ratio``, the
        workload details ``clients_a``, ``clients_b``, ``host_delay_s``, ``dirty_bytes_per_op``,
        ``exchanges_per_op``, ``cpu_demand_per_op_s`` and the two :class:`vcperf.ft.ClosedLoopResult`
        (``result_a``, ``result_b``).

    Examples
    --------
    >>> from vcperf import ft
    >>> vc = ft.vcenter_predictions(2.4e8, 49.4, checkpoint_interval_s=5.4e-3, **ft.vcenter_setup())
    >>> round(vc["ratio_a"], 2), round(vc["ratio_b"], 2), vc["clients_b"]
    (0.77, 0.4, 13)
    """
    v.single(ft_link_bps=ft_link_bps, **link_kw)
    mu = v.scalar("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s, 0.0, v.MAX_BYTES)
    kappa = v.scalar("exchange_rate_per_s", exchange_rate_per_s, 0.0, v.MAX_COUNT)
    e = v.scalar("checkpoint_interval_s", checkpoint_interval_s, 0.0, MAX_CHECKPOINT_INTERVAL_S, lo_open=True)
    c = check_ft_vcpus(vcpus)
    rate_a = v.scalar("load_a_per_s", load_a_per_s, 0.0, math.inf, lo_open=True, hi_open=True)
    rate_b = v.scalar("load_b_per_s", load_b_per_s, 0.0, math.inf, lo_open=True, hi_open=True)
    cpu = (heavy_load_cpu_demand_s(c, rate_b) if cpu_demand_per_op_s is None
           else v.scalar("cpu_demand_per_op_s", cpu_demand_per_op_s, 0.0, math.inf, lo_open=True, hi_open=True))
    browse_off = v.scalar("browse_off_s", browse_off_s, 0.0, v.MAX_DURATION_S, lo_open=True)
    t_op = 1.0 / rate_a
    if cpu > t_op:
        raise ValueError(f"cpu_demand_per_op_s must be in (0, 1 / load_a_per_s = {t_op:g}]; got {cpu:g} (from "
                         f"load_b_per_s={rate_b:g} and vcpus={c} if not given)")
    common = dict(vcpus=c, external_delay_s=t_op - cpu, exchanges_per_op=kappa * t_op,
                  dirty_bytes_per_op=mu * t_op, checkpoint_interval_s=e, ft_link_bps=ft_link_bps, **link_kw)
    try:
        n_b = load_clients(rate_b, cpu, t_op - cpu, c)
    except ValueError as exc:
        raise ValueError(f"load_b_per_s={rate_b:g} must be reachable with cpu_demand_per_op_s={cpu:g} and "
                         f"load_a_per_s={rate_a:g}: {exc}") from None
    a = closed_loop(1, 0.0, cpu, **common)
    b = closed_loop(n_b, 0.0, cpu, **common)
    browse = activity_time_s(browse_off, mu, kappa * browse_off, e, ft_link_bps, vcpus=c, **link_kw)
    restart = activity_time_s(1.0, mu, 0.0, e, ft_link_bps, vcpus=c, **link_kw)
    return {
        "ratio_a": a.throughput_ratio, "ratio_b": b.throughput_ratio,
        "browse_on_s": float(browse), "restart_ratio": float(restart),
        "clients_a": 1, "clients_b": n_b, "host_delay_s": t_op - cpu, "dirty_bytes_per_op": mu * t_op,
        "exchanges_per_op": kappa * t_op, "cpu_demand_per_op_s": cpu, "result_a": a, "result_b": b,
    }
