"""The VCHA study's calibrated parameters: :data:`STUDY`, :class:`Params` (one nested parameter set
per sub-model) and :data:`PARAM_DOCS` (unit and meaning of every parameter).

Pure: plain frozen dataclasses of floats (SI), validated on construction. The model files take
them as arguments; :mod:`vcperf.vcha.calibration` fits them to the paper's numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from vcperf import _validate as v
from vcperf import studies

#: The study's ``data/`` folder.
STUDY = "vcha2016"
#: The seed file of the study's text (data/ provenance).
SEED = studies.STUDIES[STUDY].seed


def _check_fields(params, positive=()) -> None:
    """Refuse a field outside its physical range, naming it, its value and the range: every field a
    finite real number (or an array of them) >= 0, the names in ``positive`` > 0 (one layer,
    :func:`vcperf._validate.check_range`: strings, bools, complex, timedelta, 10**400 are refused too)."""
    where = type(params).__name__
    for f in fields(params):
        try:
            v.check_range(f.name, getattr(params, f.name), 0.0, math.inf, lo_open=f.name in positive, hi_open=True)
        except ValueError as exc:
            raise type(exc)(f"{where}: {exc}") from None


@dataclass(frozen=True)
class VcbenchParams:
    """Parameters of the VCbench closed network (one set for Tables 5-7, 12-15).

    Attributes
    ----------
    cpu_demand_s : float
        vpxd CPU time per VCbench operation (core-seconds). Fitted: Tables 5, 6, 7.
    background_cpu_cores_per_host : float
        vpxd CPU busy per managed host on work that does not depend on VCbench (host sync,
        statistics collection), cores/host. Fitted: Tables 5, 6, 7 (2,000-host inventory).
    db_hold_s : float
        Time one operation holds a database connection, commits excluded (s). Fitted: Tables 5, 6, 7.
    host_delay_s : float
        Non-queueing time per operation: host RPCs, agents on ESXi, network (s). Fitted: Tables 5, 6, 7.
    think_time_s : float
        Client-side time between the end of one operation and the next (s). Fitted: Tables 5, 6, 7.
    commit_wait_s : float
        Time per operation that synchronous commits wait with VCHA on the test bed's LAN
        (``sync_commits_per_op`` x (LAN exchange + Passive's WAL flush)), s. Fitted: Tables 5, 6, 7.
    sync_commits_per_op : float
        Commits per operation that each wait one replication exchange (count). Fitted: Table 13,
        64-client rows.
    stats_db_connections_per_vm : float
        Database connections kept busy by the statistics writes of levels 3 and 4 beyond levels 1
        and 2, per powered-on VM (connections/VM). Fitted: Table 12, VCHA-disabled levels 3 and 4.
    psc_cpu_s_per_op : float
        Embedded PSC only: CPU time the PSC services spend per operation on the appliance's vCPUs
        (core-seconds). Fitted: Table 14, Embedded PSC at 64 clients.
    """

    cpu_demand_s: float
    background_cpu_cores_per_host: float
    db_hold_s: float
    host_delay_s: float
    think_time_s: float
    commit_wait_s: float
    sync_commits_per_op: float
    stats_db_connections_per_vm: float
    psc_cpu_s_per_op: float

    def __post_init__(self):
        _check_fields(self, positive=("sync_commits_per_op",))

    @property
    def commit_ack_s(self) -> float:
        """Acknowledgement time of one synchronous commit on the test bed's LAN (s)."""
        return self.commit_wait_s / self.sync_commits_per_op


@dataclass(frozen=True)
class WalParams:
    """WAL volume and management traffic (Table 11).

    Attributes
    ----------
    wal_bytes_per_op : float
        WAL bytes one VCbench operation generates (bytes). Fitted: Table 11, eth1 transmit.
    background_wal_bytes_per_object_s : float
        WAL from work independent of VCbench, per managed object (a host or a powered-on VM) per second:
        host sync rewriting host and VM rows, level-1 statistics rows, events and tasks, B/s, >= 0.
        Fitted: Table 11, eth1 transmit (the test bed's 2,000 hosts and 25,000 VMs at level 1). The
        background of an inventory and statistics level is
        :func:`vcperf.vcha.wal.background_wal_bytes_per_s`.
    eth0_receive_bytes_per_op, eth0_transmit_bytes_per_op : float
        Management-network bytes per operation (host RPCs and client SDK traffic). Fitted: Table 11
        eth0 rows (VCHA off and on, 4 runs each).
    eth0_receive_background_bytes_per_s, eth0_transmit_background_bytes_per_s : float
        Management traffic without VCbench (host sync and heartbeats of the 2,000 hosts), bytes/s.
        Fitted: Table 11 eth0 rows.
    """

    wal_bytes_per_op: float
    background_wal_bytes_per_object_s: float
    eth0_receive_bytes_per_op: float
    eth0_transmit_bytes_per_op: float
    eth0_receive_background_bytes_per_s: float
    eth0_transmit_background_bytes_per_s: float

    def __post_init__(self):
        _check_fields(self)


@dataclass(frozen=True)
class EnableParams:
    """Enabling VCHA (Table 4).

    Attributes
    ----------
    clone_base_bytes : float
        Per clone: appliance disk data that does not depend on the inventory (OS, services, empty
        database), bytes. Fitted: Table 4 clone rows.
    clone_bytes_per_registered_vm : float
        Appliance disk data that grows with the inventory, per registered VM (bytes). Fitted: Table
        4 clone rows.
    configure_s : float
        Fixed time to configure PostgreSQL and file replication. Fitted: Table 4 configure rows.
    """

    clone_base_bytes: float
    clone_bytes_per_registered_vm: float
    configure_s: float

    def __post_init__(self):
        _check_fields(self)


@dataclass(frozen=True)
class FailoverParams:
    """Failover phases (Tables 2, 3, 16, 17).

    Attributes
    ----------
    takeover_s : float
        Failure detection, promotion of the Passive and take-over of the public IP, until the
        "failover in progress" page is served (s). Fitted: Table 2 and Table 17 External InProgress.
    vpxd_start_cpu_s : float
        vpxd start-up work that is spread over the vCPUs (core-seconds). Fitted: Table 2.
    vpxd_start_s_per_vm : float
        vpxd start-up time per registered VM (inventory load; does not shrink with vCPUs), s. Fitted:
        Table 2.
    psc_start_s : float
        Embedded PSC only: PSC services started before the management services (s). Fitted: Table 16.
    client_start_cpu_s : float
        vsphere-client start-up work spread over the vCPUs (core-seconds). Fitted: Table 3.
    client_start_s_per_vm : float
        vsphere-client start-up time per registered VM, s. Fitted: Table 3.
    blue_screen_offset_s, inventory_screen_offset_s, vc_summary_offset_s : float
        Blue screen, inventory and VC-summary page after the blank screen (s). Fitted: Table 3.
    """

    takeover_s: float
    vpxd_start_cpu_s: float
    vpxd_start_s_per_vm: float
    psc_start_s: float
    client_start_cpu_s: float
    client_start_s_per_vm: float
    blue_screen_offset_s: float
    inventory_screen_offset_s: float
    vc_summary_offset_s: float

    def __post_init__(self):
        _check_fields(self)

    @property
    def screen_offsets_s(self) -> tuple:
        """``(blue, inventory, vc_summary)`` offsets after the blank screen (s)."""
        return (self.blue_screen_offset_s, self.inventory_screen_offset_s, self.vc_summary_offset_s)


@dataclass(frozen=True)
class DiskParams:
    """Disk writes of the database (Tables 9, 10).

    Attributes
    ----------
    sdf_eviction_bytes_s_per_op2 : float
        sdf (core tables) bytes written back by dirty-buffer evictions, per operation and per
        operation-per-second of load, B s/op^2, >= 0: buffer replacements grow with the operation
        rate and so does the share of victims that are dirty, so these writes grow as rate^2
        (:func:`vcperf.vcha.disk.disk_writes`). Fitted: Tables 9-10 sdf bandwidth, baseline and Active.
    sdf_background_bytes_per_s : float
        sdf writes whatever the VCbench load: the checkpointer writing the hot core-table pages
        (host and VM rows that the 2,000 hosts' sync keeps dirty) once per checkpoint, B/s, >= 0.
        Fitted: as above.
    sdh_bytes_per_op : float
        Data-page bytes written per VCbench operation on sdh (SEAT tables), B, >= 0. Fitted: Tables
        9-10 sdh bandwidth, baseline and Active.
    sdh_background_bytes_per_s : float
        sdh writes independent of VCbench (statistics, events, tasks), B/s, >= 0. Fitted: as above.
    sdf_write_bytes, sdh_write_bytes : float
        Average size of one data write (B). Fitted: the writes/s rows of Tables 9-10.
    sdf_small_writes_per_s : float
        sdf writes per second that carry no data volume of their own (journal commits, file
        metadata, single-page background-writer rounds), >= 0, 1/s. Fitted with ``sdf_write_bytes``
        to the sdf writes/s rows of Tables 9-10 (baseline and Active).
    wal_flushes_per_op : float
        WAL flushes (sdg writes) per VCbench operation. Fitted: Tables 9-10 sdg writes/s.
    wal_background_flushes_per_s : float
        WAL flushes independent of VCbench (WAL writer, background commits), 1/s. Fitted: as above.
    walreceiver_cycle_s : float
        One cycle of the Passive's walreceiver (write the WAL read so far + ``fdatasync``), s, > 0:
        the Passive's own storage flush, which sets how many Active flushes it coalesces
        (:func:`vcperf.vcha.disk.standby_flushes_per_s`). Fitted: the Passive's sdg writes/s of
        Tables 9-10 (its flush counts). It is the Passive's storage (``run_vcbench(passive_flush_s=...)``);
        the rest of the commit's fitted flush wait (:func:`vcperf.vcha.vcbench.standby_flush_s`, Tables
        5-7 and 13) is the replication wake-up (:func:`vcperf.vcha.disk.replication_wakeup_s`).
    """

    sdf_eviction_bytes_s_per_op2: float
    sdf_background_bytes_per_s: float
    sdf_write_bytes: float
    sdh_bytes_per_op: float
    sdh_background_bytes_per_s: float
    sdh_write_bytes: float
    wal_flushes_per_op: float
    wal_background_flushes_per_s: float
    sdf_small_writes_per_s: float
    walreceiver_cycle_s: float

    def __post_init__(self):
        _check_fields(self, positive=("sdf_write_bytes", "sdh_write_bytes", "walreceiver_cycle_s"))


@dataclass(frozen=True)
class MemoryParams:
    """Peak resident memory (Table 8).

    Attributes
    ----------
    vpxd_bytes_per_host : float
        vpxd inventory cache per managed host (with its VMs), B/host. Fitted: Table 8 vpxd rows.
    vpxd_bytes_per_client : float
        vpxd session state per connected VCbench client, B. Fitted: Table 8 vpxd rows.
    postgres_bytes : float
        The PostgreSQL instance without client backends (shared buffers, server processes; on the
        Passive: with replay and walreceiver, its whole postgres), B, >= 0. Fitted: Table 8 Passive
        postgres rows.
    postgres_bytes_per_connection : float
        One client backend of the vpxd connection pool (baseline appliance and Active only), B, >= 0.
        Fitted: Table 8 baseline and Active postgres rows (the test bed's pool,
        ``data/vcha2016/external_vcenter_limits``).
    vcha_bytes : float
        The VCHA service (Active and Passive), B. Fitted: Table 8 vcha rows.

    Every field is >= 0 (a negative one is refused), so no node's memory is negative.
    """

    vpxd_bytes_per_host: float
    vpxd_bytes_per_client: float
    postgres_bytes: float
    postgres_bytes_per_connection: float
    vcha_bytes: float

    def __post_init__(self):
        _check_fields(self)


@dataclass(frozen=True)
class Params:
    """Calibrated parameters of the VCHA study: one set per sub-model.

    Attributes
    ----------
    vcbench : VcbenchParams
        The VCbench closed network (:mod:`vcperf.vcha.vcbench`).
    wal : WalParams
        WAL volume and management traffic (:mod:`vcperf.vcha.wal`).
    enable : EnableParams
        Enabling VCHA (:mod:`vcperf.vcha.enable`).
    failover : FailoverParams
        Failover phases (:mod:`vcperf.vcha.failover`).
    disk : DiskParams
        Database disk writes (:mod:`vcperf.vcha.disk`).
    memory : MemoryParams
        Peak resident memory (:mod:`vcperf.vcha.memory`).
    """

    vcbench: VcbenchParams
    wal: WalParams
    enable: EnableParams
    failover: FailoverParams
    disk: DiskParams
    memory: MemoryParams

    def __post_init__(self):
        for name, cls in (("vcbench", VcbenchParams), ("wal", WalParams), ("enable", EnableParams),
                          ("failover", FailoverParams), ("disk", DiskParams), ("memory", MemoryParams)):
            if not isinstance(getattr(self, name), cls):
                raise ValueError(f"{name} must be a {cls.__name__} (Params); got {type(getattr(self, name)).__name__}")


#: ``"sub-model.field"`` -> (unit, meaning) of every parameter.
PARAM_DOCS = {
    "vcbench.cpu_demand_s": ("core-s/op", "vpxd CPU time per VCbench operation"),
    "vcbench.background_cpu_cores_per_host": ("cores/host", "vpxd CPU busy per managed host on work independent "
                                                              "of VCbench (host sync, stats)"),
    "vcbench.db_hold_s": ("s/op", "time an operation holds a DB connection, commits excluded"),
    "vcbench.host_delay_s": ("s/op", "non-queueing time per operation (host RPCs, network)"),
    "vcbench.think_time_s": ("s", "client think time between operations"),
    "vcbench.commit_wait_s": ("s/op", "synchronous-commit wait per operation with VCHA on the test bed LAN"),
    "vcbench.sync_commits_per_op": ("commits/op", "commits per operation that wait one replication round trip"),
    "vcbench.stats_db_connections_per_vm": ("connections/VM", "DB connections kept busy by statistics levels 3-4, "
                                                                "per powered-on VM"),
    "vcbench.psc_cpu_s_per_op": ("core-s/op", "Embedded PSC: PSC CPU work per operation on the appliance's vCPUs"),
    "wal.wal_bytes_per_op": ("B/op", "WAL bytes per VCbench operation (eth1 to the Passive)"),
    "wal.background_wal_bytes_per_object_s": ("B/s/object", "WAL independent of VCbench per managed host or "
                                                            "powered-on VM (host sync, level-1 statistics)"),
    "wal.eth0_receive_bytes_per_op": ("B/op", "management-network bytes received per operation"),
    "wal.eth0_transmit_bytes_per_op": ("B/op", "management-network bytes sent per operation"),
    "wal.eth0_receive_background_bytes_per_s": ("B/s", "management traffic received without VCbench"),
    "wal.eth0_transmit_background_bytes_per_s": ("B/s", "management traffic sent without VCbench"),
    "enable.clone_base_bytes": ("B", "per clone: appliance disk data independent of the inventory"),
    "enable.clone_bytes_per_registered_vm": ("B/VM", "appliance disk data per registered VM, moved by each clone"),
    "enable.configure_s": ("s", "configuring PostgreSQL and file replication"),
    "failover.takeover_s": ("s", "failure detection, promotion and IP take-over (InProgress page)"),
    "failover.vpxd_start_cpu_s": ("core-s", "vpxd start-up work spread over the vCPUs"),
    "failover.vpxd_start_s_per_vm": ("s/VM", "vpxd start-up time per registered VM"),
    "failover.psc_start_s": ("s", "Embedded PSC: PSC services started before vpxd"),
    "failover.client_start_cpu_s": ("core-s", "vsphere-client start-up work spread over the vCPUs"),
    "failover.client_start_s_per_vm": ("s/VM", "vsphere-client start-up time per registered VM"),
    "failover.blue_screen_offset_s": ("s", "blue screen after the blank screen"),
    "failover.inventory_screen_offset_s": ("s", "inventory after the blank screen"),
    "failover.vc_summary_offset_s": ("s", "VC-summary page after the blank screen"),
    "disk.sdf_eviction_bytes_s_per_op2": ("B s/op^2", "sdf (core tables) dirty-buffer eviction writes per "
                                                      "operation, per operation/s of load (writes grow as rate^2)"),
    "disk.sdf_background_bytes_per_s": ("B/s", "sdf checkpoint writes of the hot core-table pages, whatever "
                                               "the VCbench load"),
    "disk.sdf_write_bytes": ("B", "average sdf data write"),
    "disk.sdf_small_writes_per_s": ("1/s", "sdf writes carrying no data volume (journal, metadata, single pages)"),
    "disk.sdh_bytes_per_op": ("B/op", "sdh (SEAT tables) page writes per VCbench operation"),
    "disk.sdh_background_bytes_per_s": ("B/s", "sdh page writes independent of VCbench"),
    "disk.sdh_write_bytes": ("B", "average sdh write"),
    "disk.wal_flushes_per_op": ("1/op", "WAL flushes (sdg writes) per VCbench operation"),
    "disk.wal_background_flushes_per_s": ("1/s", "WAL flushes independent of VCbench"),
    "disk.walreceiver_cycle_s": ("s", "the Passive's storage: its walreceiver cycle (WAL write + fdatasync); the "
                                      "replication wake-up is the rest of the fitted flush wait"),
    "memory.vpxd_bytes_per_host": ("B/host", "vpxd inventory cache per managed host"),
    "memory.vpxd_bytes_per_client": ("B/client", "vpxd session state per VCbench client"),
    "memory.postgres_bytes": ("B", "PostgreSQL without client backends (the Passive's whole postgres)"),
    "memory.postgres_bytes_per_connection": ("B", "one client backend of vpxd's pool (baseline and Active)"),
    "memory.vcha_bytes": ("B", "the VCHA service"),
}
