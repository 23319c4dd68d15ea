"""FT mechanism figures (not figures of the paper): FT logging traffic vs data received, Figure 2's implied
FT-off time, and the throughput ratio of closed loops vs their latency sensitivity."""

from __future__ import annotations

import textwrap

import numpy as np

from vcperf import ft, plotting
from vcperf.views.ft.common import ON, RECEIVE_GRID_BPS, legend_outside, new_figure


def logging_bandwidth_figure():
    """Mechanism: FT logging traffic vs data received (behind Figures 3-4) and Figure 2's implied FT-off time."""
    e = ft.calibrate().checkpoint_interval_s
    fig, (ax, ax2) = new_figure((10.0, 3.7), 2)
    for dirty in (0.0, 200e6, 1e9):
        ax.plot(RECEIVE_GRID_BPS / 1e9, ft.ft_logging_bandwidth_bps(RECEIVE_GRID_BPS, dirty, e) / 1e9,
                label=f"+ {dirty / 1e6:,.0f} MB/s other dirty memory")
    ax.axhline(ft.DEFAULT_FT_LINK_BPS / 1e9, color="grey", ls="--", lw=1, label="FT link rate (never exceeded)")
    ax.set_ylim(0, ft.DEFAULT_FT_LINK_BPS / 1e9 * 1.1)
    ax.set_xlabel("data received by the guest while running (Gbit/s)")
    ax.set_ylabel("FT logging traffic (Gbit/s)")
    ax.set_title("receive-heavy loads fill the FT link", fontsize=9)
    legend_outside(ax, below=True, bbox_to_anchor=(0.5, -0.22))
    dirty = np.linspace(0, 500e6, 51)
    frac = ft.kernel_compile_overhead_fraction(dirty, e)
    ax2.plot(dirty / 1e6, ft.implied_kernel_compile_baseline_s(dirty) / 60, color=ON)
    ax2.set_xlabel("compile's dirty rate (MB/s)")
    ax2.set_ylabel("implied FT-off compile time (min)")
    ax2.set_title(textwrap.fill(f"Figure 2's +{ft.kernel_compile_increase_s():g} s at a model overhead of "
                                f"{frac[0]:.1%} to {frac[-1]:.1%}", 50), fontsize=9)
    plotting.finish(fig)
    return fig


def sensitivity_figure():
    """Mechanism: FT throughput ratio of closed loops vs latency sensitivity (exchanges per operation).

    The seed's point that pure latency benchmarks lose in proportion while client/server loads barely
    do: each curve is a closed loop at the seed's 60 % vCPU with a different think time.
    """
    ks = np.array([0, 1, 2, 5, 10, 20, 50, 100])
    tb = ft.testbed()
    n, vcpus, e = tb.dvdstore_threads, tb.dvdstore_vcpus, ft.calibrate().checkpoint_interval_s
    fig, ax = new_figure((7.6, 3.7))
    for z in (0.0, 0.05, 0.4, 2.0):
        ratios = []
        for k in ks:
            # with no think time some other delay (20 ms of I/O or network) keeps the vCPUs below saturation
            r = ft.closed_loop_at_utilization(n, z, float(k), tb.cpu_utilization, checkpoint_interval_s=e, vcpus=vcpus,
                                              external_delay_s=0.02 if z == 0 else 0.0)
            ratios.append(r.throughput_ratio)
        ax.semilogx(np.maximum(ks, 0.5), ratios, marker="o", ms=3, label=f"think time {z:g} s")
    ax.set_xlabel("client exchanges per operation (0 drawn at 0.5)")
    ax.set_ylabel("throughput FT on / FT off")
    ax.set_title(f"{n} clients, {vcpus} vCPUs at the seed's real-life vCPU load without FT", fontsize=9)
    ax.set_ylim(0, 1.05)
    legend_outside(ax)
    plotting.finish(fig)
    return fig


#: name -> function() of the mechanism figures the notebook saves beside the paper's.
MECHANISM_FIGURES = {
    "mechanism_ft_logging_traffic": logging_bandwidth_figure,
    "mechanism_latency_sensitivity": sensitivity_figure,
}
