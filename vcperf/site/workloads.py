"""Each workload of a site plan as its study's model on one link: what it asks of the link (its
flows, each of a kind of :mod:`vcperf.traffic`: elastic, paced or closed-loop), its answers on the rate
available to it, and its study's own flags at that rate, passed through unchanged
(:class:`vcperf.traffic.Flag`).

A workload adaptor holds the plan's description of it and calls only the study's public API
(``vcperf.<study>`` exports): ROBO's shared branch link (:func:`vcperf.robo.plan`), vMotion's
migration (:func:`vcperf.vmotion.migrate_testbed`), the Content Library's deployment paths
(:func:`vcperf.contentlib.deploy_time_s`), VCHA's VCbench network (:func:`vcperf.vcha.run_vcbench`) and
FT's checkpoint cycle (:func:`vcperf.ft.checkpoint_cycle`). ``answers(link, params)`` is a vector of
the workload's quantities on a :class:`vcperf.network.Link` (its available rates) under the study's
``params``, so the interval's parameter gradient is one pair of calls per parameter. An adaptor may
name the parameters its answers read (``reads``: the others' derivatives are exactly 0) and answer
for many parameter sets in one call (``answers_many``: ROBO's branch model broadcasts its
parameters). Model results that do not depend on the link (VCHA without replication) are cached on
the hashable, frozen inputs; those one evaluation asks for more than once (a branch on its full
link: its flows, flags and answer alone) are kept for that evaluation only (:func:`one_evaluation`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

from vcperf import contentlib, ft, network, protocol, robo, traffic, vcha
from vcperf import vmotion as vm
from vcperf.site.plan import Branch, DeploymentSpec, FtSpec, LinkSpec, MigrationSpec, VCenter
from vcperf.vcha.vcbench import VCBENCH_PARAM_FIELDS

__all__ = ["BranchWork", "MigrationWork", "DeploymentWork", "VchaWork", "FtWork"]


def as_link(spec: LinkSpec, down_bps=None, up_bps=None) -> network.Link:
    """The :class:`vcperf.network.Link` of a plan's link, optionally at other rates (a flow's share)."""
    down = spec.bandwidth_bps if down_bps is None else down_bps
    up = (spec.up_bandwidth_bps or spec.bandwidth_bps) if up_bps is None else up_bps
    return network.Link(float(down), spec.rtt_s, spec.loss, spec.name, float(up))


@functools.cache
def _robo_range() -> dict:
    """The ROBO study's measured links (Table 1) and hosts: outside them an answer is extrapolated."""
    links = [robo.preset(n) for n in robo.preset_names()]
    return {"bw": (min(lk.bandwidth_bps for lk in links), max(lk.bandwidth_bps for lk in links)),
            "rtt": max(lk.rtt_s for lk in links), "loss": max(lk.loss for lk in links),
            "hosts": robo.testbed().esxi_hosts}


#: The parameters :func:`vcperf.robo.plan` reads: its host-sync, statistics and operation groups (the
#: add-host group is never read).
_BRANCH_READS = tuple(f"{group}.{f.name}" for group, cls in (
    ("hostsync", robo.HostSyncParams), ("stats", robo.StatsParams), ("ops", robo.OpsParams))
    for f in dataclasses.fields(cls))


#: Branch plans of the evaluation under way, by (workload, link, params): :func:`one_evaluation`.
_EVALUATION: dict = {}


def _once(key, compute):
    """``compute()`` once per ``key`` within :func:`one_evaluation` (a model result its flows, answers and flags
    all read); recomputed outside one, and for unhashable (array-valued) parameters."""
    if not _ACTIVE:
        return compute()
    try:
        hash(key)
    except TypeError:
        return compute()
    if key not in _EVALUATION:
        _EVALUATION[key] = compute()
    return _EVALUATION[key]


@contextlib.contextmanager
def one_evaluation():
    """Within this block a workload's model on a link is computed once (its flows, flags, answer and answer
    alone read the same results); forgotten at its end, so an evaluation repeated recomputes everything."""
    _ACTIVE.append(True)
    try:
        yield
    finally:
        _ACTIVE.pop()
        if not _ACTIVE:
            _EVALUATION.clear()


#: Open :func:`one_evaluation` blocks (nested ones share the outer one's results).
_ACTIVE: list = []


@dataclass(frozen=True)
class BranchWork:
    """A branch office's host sync, statistics and one vCenter operation on its link (ROBO)."""

    spec: Branch
    study = robo.STUDY
    kind = "branch"
    quantities = ("operation_latency_s", "statistics_delay_s")
    #: The direction whose flow binds a quantity (default: the workload's most constrained flow).
    directions = {"statistics_delay_s": "up"}
    #: The data table whose misfit a quantity's band carries (as the ROBO panels' readouts; default: the
    #: study's pooled misfit).
    tables = {"operation_latency_s": robo.LATENCY_TABLE, "statistics_delay_s": robo.UPLOAD_TABLE}
    reads = _BRANCH_READS
    #: Its answers are round trips: they wait in a standing queue of the link.
    latency_bound = True

    def _vms(self):
        return robo.testbed().powered_on_vms_per_host if self.spec.vms_per_host is None else self.spec.vms_per_host

    def _run_plan(self, link, params):
        s = self.spec
        return robo.plan(link, s.hosts, s.stats_level, s.operation, powered_on_vms=self._vms(), params=params)

    def _plan(self, link, params):
        return _once((self, link, params), lambda: self._run_plan(link, params))

    def answers(self, link, params):
        b = self._plan(link, params)
        return np.array([float(b.operation_latency_s), float(b.statistics_delay_s)])

    def answers_many(self, link, params_list):
        """:meth:`answers` at each of ``params_list``: the sets that share their host-sync group (the
        VM-state size is a scalar of the model) in one call with the others stacked as arrays."""
        groups: dict = {}
        out = [None] * len(params_list)
        for j, q in enumerate(params_list):
            if j == 0:  # the unperturbed set: its plan is kept for the evaluation (its flags read it too)
                out[0] = self.answers(link, q)
                continue
            groups.setdefault(q.hostsync, []).append(j)
        for hostsync, idx in groups.items():
            qs = [params_list[j] for j in idx]
            if len(qs) == 1:
                out[idx[0]] = self.answers(link, qs[0])
                continue
            stack = robo.Params(hostsync, robo.StatsParams(np.array([q.stats.bytes_per_sample for q in qs])),
                                robo.OpsParams(np.array([q.ops.vcenter_demand_per_step_s for q in qs]),
                                               np.array([q.ops.round_trips_per_call for q in qs])), qs[0].addhost)
            b = self._run_plan(link, stack)
            lat, stats = (np.broadcast_to(x, (len(qs),)) for x in (b.operation_latency_s, b.statistics_delay_s))
            for k, j in enumerate(idx):
                out[j] = np.array([float(lat[k]), float(stats[k])])
        return out

    def flows(self, spec: LinkSpec, params):
        b = self._plan(as_link(spec), params)
        up = float(b.offered_load) * as_link(spec).up_bps
        # "branch shop", but a branch named "branch" (or "branch 2") is not said twice ("branch branch")
        name = self.spec.name if self.spec.name.lower().startswith("branch") else f"branch {self.spec.name}"
        return [(f"{name}: host sync + statistics", "up", up, "paced"),
                (f"{name}: host sync + operations", "down", float(b.sync_down_bps), "paced")]

    def flags(self, spec: LinkSpec, link=None):
        """The study's flags on ``link`` (the rates available to it; default the whole link) as
        :class:`vcperf.traffic.Flag`."""
        return traffic.as_flags(self._flag_text(spec, as_link(spec) if link is None else link), self.study)

    def _flag_text(self, spec: LinkSpec, link):
        r, s, out = _robo_range(), self.spec, []
        if not r["bw"][0] <= spec.bandwidth_bps <= r["bw"][1] or spec.rtt_s > r["rtt"] or spec.loss > r["loss"]:
            out.append(f"extrapolation: link {spec.name} outside the ROBO study's measured links "
                       f"({r['bw'][0] / 1e6:g}-{r['bw'][1] / 1e6:g} Mbit/s, RTT <= {r['rtt'] * 1e3:g} ms, "
                       f"loss <= {r['loss']:g})")
        if s.hosts > r["hosts"]:
            out.append(f"extrapolation: {s.hosts:g} hosts beyond the ROBO test bed's {r['hosts']:g}")
        b = self._plan(link, calibrated(self.study))
        if bool(np.any(b.overloaded)):  # the branch's own flows exceed the link: its answers are infinite
            out.append(f"overload: branch {s.name}'s flows offer {float(np.max(b.offered_load)):.0%} of the rate "
                       f"link {spec.name} leaves them (dominant: {np.asarray(b.dominant_flow).flat[0]}); their "
                       "queue grows without bound, so its times are infinite")
        return out


@dataclass(frozen=True)
class MigrationWork:
    """``count`` vMotions over a link, ``concurrency`` at a time (vMotion study)."""

    spec: MigrationSpec
    study = vm.STUDY
    kind = "migration"
    quantities = ("migration_time_s", "downtime_s", "vmotion_throttle")
    #: The parameters a migration reads: all but the TPCx-HCI group (read by the TPCx-HCI checks only).
    reads = tuple(f.name for f in dataclasses.fields(vm.Params) if f.name != "tpcx")
    latency_bound = False

    def _vm(self, params):
        w, s = vm.workloads()["typical"], self.spec
        mem = w.memory_bytes if s.memory_bytes is None else s.memory_bytes
        ws = min(w.working_set_bytes if s.working_set_bytes is None else s.working_set_bytes, mem)
        tps = w.baseline_tps if s.dirty_rate_bytes_per_s is None else max(
            s.dirty_rate_bytes_per_s / params.dirty_bytes_per_transaction, 1e-9)
        return mem, (w.vcpus if s.vcpus is None else s.vcpus), ws, tps

    def _migrate(self, link, params):
        return _once(("migrate", self, link, params), lambda: self._run_migrate(link, params))

    def _run_migrate(self, link, params):
        s = self.spec
        rate = link.down_bps if s.direction == "down" else link.up_bps
        return vm.migrate_testbed(*self._vm(params), s.release, rate, params=params, rtt_s=link.rtt_s,
                                  n_vmknics=s.vmknics)

    def answers(self, link, params):
        try:
            m = self._migrate(link, params)
        except ValueError:  # a share below the migration model's domain (e.g. < 1 Mbit/s): no answer (flagged)
            return np.array([math.nan, math.nan, math.nan])
        batches = math.ceil(self.spec.count / self.spec.concurrency)
        # SDPS's throttle of the guest: the share of its pace stunned away while it migrates
        return np.array([float(m.migration_time_s) * batches, float(m.switchover_time_s),
                         float(m.sdps_throttle_fraction)])

    def flows(self, spec: LinkSpec, params):
        return [(f"migration {self.spec.name} #{i + 1}", self.spec.direction, math.inf, "elastic")
                for i in range(self.spec.concurrency)]

    def flags(self, spec: LinkSpec, link=None):
        """The vMotion model's own flags at the rate each concurrent migration gets (VMware's 250 Mbit/s per
        concurrent vMotion, its RTT limit, memory and vCPUs beyond the calibration), unchanged, plus the
        extrapolation of a LAN study to a WAN."""
        link = as_link(spec) if link is None else link
        try:
            out = list(traffic.as_flags(self._migrate(link, calibrated(self.study)).flags, self.study))
        except ValueError as e:
            out = [traffic.Flag("limit", f"outside the vMotion model's domain: {e}", self.study)]
        if spec.rtt_s > 0 or spec.loss > 0:
            out.append(traffic.Flag("extrapolation", f"extrapolation: the vMotion study measured a LAN; link "
                                    f"{spec.name}'s RTT and loss enter through TCP's windows only", self.study))
        return tuple(out)


@dataclass(frozen=True)
class DeploymentWork:
    """``count`` simultaneous template deployments over a link (Content Library study)."""

    spec: DeploymentSpec
    study = contentlib.STUDY
    kind = "deployment"
    quantities = ("deployment_time_s",)
    latency_bound = False

    def _link(self, link):
        """The plan's link as the WAN of the deployment's path, toward the destination host."""
        rate = link.down_bps if self.spec.direction == "down" else link.up_bps
        return network.Link(float(rate), link.rtt_s, link.loss, link.name)

    def answers(self, link, params):
        # The link is the WAN the path's network hop crosses (host to host; vCenter to host when streaming):
        # one TCP connection over it, NFC's own cap applied once (contentlib.WAN_HOP).
        s = self.spec
        return np.array([float(contentlib.deploy_time_s(s.path, s.size_bytes, link=self._link(link), params=params))])

    def flows(self, spec: LinkSpec, params):
        # Elastic: it asks for the wire rate its path reaches alone on the link (its slowest stage: TCP over
        # the WAN, or NFC / a data mover when those are slower), so on a link with room it is never slowed.
        s = self.spec
        st = contentlib.path_stages(s.path, link=self._link(as_link(spec)), params=params)
        # While it sends, the path's network hop runs at the slowest of the pipelined stages and the hop itself
        # (streaming reads and decompresses a chunk before sending it: its sends are bursts at that rate).
        hop = min([*map(float, st.pipelined.values()), float(st.serial.get("nfc_to_host", math.inf))])
        demand = math.inf if contentlib.WAN_HOP[s.path] is None or hop <= 0 else float(
            network.wire_rate_bps(8.0 * hop))
        return [(f"deployment {s.name} #{i + 1}", s.direction, demand, "elastic") for i in range(s.count)]

    def flags(self, spec: LinkSpec, link=None):
        if spec.bandwidth_bps < contentlib.DEFAULT_NETWORK_BPS or spec.rtt_s > 0 or spec.loss > 0:
            hop = contentlib.WAN_HOP[self.spec.path] or "no"
            return (traffic.Flag("extrapolation", f"extrapolation: the Content Library study measured 1 GbE LANs; "
                                 f"link {spec.name} is slower or longer (it is crossed by the {hop} hop, TCP over "
                                 "its rate, RTT and loss)", self.study),)
        return ()


@functools.lru_cache(maxsize=256)
def _vcbench_off(work, params):
    """VCbench without VCHA: independent of the link, so one per parameter set (cached)."""
    return vcha.run_vcbench(work.spec.clients, False, params=params, **work._kw())


@dataclass(frozen=True)
class VchaWork:
    """VCHA's replication across a link: vCenter's throughput and latency with it (VCHA study)."""

    spec: VCenter
    study = vcha.STUDY
    kind = "vcha"
    quantities = ("vcha_throughput_loss", "vcha_latency_s")
    #: The parameters VCbench reads (:data:`vcperf.vcha.vcbench.VCBENCH_PARAM_FIELDS`).
    reads = tuple(f"{group}.{name}" for group, name in VCBENCH_PARAM_FIELDS)
    #: Commits are round trips to the Passive: they wait in a standing queue of the link.
    latency_bound = True

    def _kw(self):
        return vcha.appliance(self.spec.size) if self.spec.size else vcha.testbed().appliance()

    def _runs(self, link, params):
        return _once(("vcbench", self, link, params), lambda: self._run_vcbench(link, params))

    def _run_vcbench(self, link, params):
        rate = link.down_bps if self.spec.vcha.direction == "down" else link.up_bps
        if rate < 1e3:  # below the VCbench model's domain: no answer (flagged)
            return None, None
        added = max(link.rtt_s - vcha.LAN_RTT_S, 0.0)
        on = vcha.run_vcbench(self.spec.clients, True, min(added, 1.0), params=params, bandwidth_bps=min(rate, 1e12),
                          loss=min(link.loss, 0.2), **self._kw())
        return on, _vcbench_off(self, params)

    def answers(self, link, params):
        on, off = self._runs(link, params)
        if on is None:
            return np.array([math.nan, math.nan])
        return np.array([1.0 - float(on.throughput_per_s) / float(off.throughput_per_s), float(on.response_time_s)])

    def flows(self, spec: LinkSpec, params):
        on, _ = self._runs(as_link(spec), params)
        x = 0.0 if on is None else float(on.throughput_per_s)
        kw = self._kw()
        bg = vcha.background_wal_bytes_per_s(kw["hosts"], kw["powered_on_vms"], params)  # the inventory's
        wal = vcha.replication_traffic_bytes_per_s(x, params.wal, bg)
        # A closed loop: commits wait for the Passive, so its rate adapts to what the link gives.
        return [("VCHA replication (WAL)", self.spec.vcha.direction, float(network.wire_rate_bps(8.0 * wal)),
                 "closed_loop")]

    def flags(self, spec: LinkSpec, link=None):
        """VCbench's own flags on the rate available to the replication (the 10 ms VCHA network limit, the
        asynchronous fallback: RPO > 0), unchanged, plus the extrapolation beyond its test bed."""
        link = as_link(spec) if link is None else link
        on, _ = self._runs(link, calibrated(self.study))
        out = [traffic.Flag("limit", f"VCHA's replication gets under {1e3:g} bit/s of link {spec.name}: outside "
                            "the VCbench model's domain", self.study)] if on is None else list(
            traffic.as_flags(on.flags, self.study))
        tb = vcha.testbed().replication_bandwidth_bps
        if spec.bandwidth_bps < tb or spec.loss > 0:
            out.append(traffic.Flag("extrapolation", f"extrapolation: VCHA measured a {tb / 1e9:g} Gbit/s lossless "
                                    f"private network; link {spec.name} is slower or lossy", self.study))
        return tuple(out)


@dataclass(frozen=True)
class FtWork:
    """``count`` FT VMs logging over a link (FT study)."""

    spec: FtSpec
    study = ft.STUDY
    kind = "ft"
    quantities = ("ft_overhead", "ft_output_delay_s")
    #: The one parameter the checkpoint cycle reads.
    reads = ("checkpoint_interval_s",)
    #: Each checkpoint waits for the secondary's acknowledgement: a round trip in the link's standing queue.
    latency_bound = True

    def answers(self, link, params):
        s = self.spec
        rate = link.down_bps if s.direction == "down" else link.up_bps
        c = ft.checkpoint_cycle(s.dirty_rate_bytes_per_s, params.checkpoint_interval_s, rate,
                                ft_ack_rtt_s=link.rtt_s, ft_link_loss=link.loss, vcpus=s.vcpus)
        return np.array([1.0 / float(c.run_fraction) - 1.0, float(c.output_commit_delay_s)])

    def flows(self, spec: LinkSpec, params):
        s = self.spec
        lk = as_link(spec)
        rate = lk.down_bps if s.direction == "down" else lk.up_bps
        bw = float(ft.ft_logging_bandwidth_bps(
            s.receive_rate_bps, s.dirty_rate_bytes_per_s, params.checkpoint_interval_s, rate,
            transmit_rate_bps=s.transmit_rate_bps, ft_ack_rtt_s=spec.rtt_s, ft_link_loss=spec.loss, vcpus=s.vcpus))
        # A closed loop: each checkpoint waits for the secondary's acknowledgement, so a VM whose logging the
        # link cannot carry is stunned longer (its overhead answer), never left with a growing backlog.
        return [(f"FT {s.name} #{i + 1} logging", s.direction, bw, "closed_loop") for i in range(s.count)]

    def flags(self, spec: LinkSpec, link=None):
        """FT's documented limits for the logging link, its VMs and vCPUs (:func:`vcperf.ft.limit_flags`),
        unchanged, plus the extrapolation of a LAN study to a longer or lossy link."""
        s = self.spec
        out = [traffic.Flag("limit", f, self.study) for f in ft.limit_flags(spec.bandwidth_bps, s.vcpus, s.count)]
        if spec.rtt_s > ft.DEFAULT_FT_ACK_RTT_S * 10 or spec.loss > 0:
            out.append(traffic.Flag("extrapolation", f"extrapolation: FT measured a LAN logging link; link "
                                    f"{spec.name}'s RTT and loss enter through the checkpoint's acknowledgement "
                                    "and TCP", self.study))
        return tuple(out)


def workloads(plan) -> list:
    """Every workload of ``plan`` as an adaptor, with the name of the link it crosses."""
    out = [(BranchWork(b), b.link) for b in plan.branches]
    out += [(MigrationWork(m), m.link) for m in plan.migrations]
    out += [(DeploymentWork(d), d.link) for d in plan.deployments]
    if plan.vcenter.vcha is not None:
        out.append((VchaWork(plan.vcenter), plan.vcenter.vcha.link))
    out += [(FtWork(f), f.link) for f in plan.ft]
    return out


def calibrated(study: str):
    """The study's calibrated parameters (disk-cached)."""
    return protocol.calibrated(study)
