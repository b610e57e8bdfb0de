"""The memory a run may use is the least of the host's available memory, the room under the
process's cgroup limit and under its address-space limit (ulimit -v)."""

import resource

import torch

from bnnsample.plumbing import resources


def test_free_memory_honours_the_address_space_limit(monkeypatch):
    monkeypatch.setattr(resource, "getrlimit", lambda what: (10 << 30, resource.RLIM_INFINITY))
    room = resources._rlimit_room()
    assert room is not None and room < 10 << 30
    monkeypatch.setattr(resources, "_mem_available", lambda: 64 << 30)
    monkeypatch.setattr(resources, "_cgroup_room", lambda: None)
    assert resources.free_memory(torch.device("cpu")) == room
    monkeypatch.setattr(resources, "_cgroup_room", lambda: 1 << 30)
    assert resources.free_memory(torch.device("cpu")) == 1 << 30


def fake_cgroups(monkeypatch, tmp_path, proc_line: str):
    """/proc/self/cgroup holding ``proc_line`` and /sys/fs/cgroup, both under tmp_path; returns
    the fake /sys/fs/cgroup."""
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "cgroup").write_text(proc_line + "\n")
    real_path = resources.Path

    def fake(p):
        p = str(p)
        if p == "/proc/self/cgroup":
            return real_path(tmp_path / "proc" / "cgroup")
        if p.startswith("/sys/fs/cgroup"):
            return real_path(str(tmp_path / "sys") + p.removeprefix("/sys/fs/cgroup"))
        return real_path(p)

    monkeypatch.setattr(resources, "Path", fake)
    return tmp_path / "sys"


def write_levels(base, files: dict) -> None:
    for rel, values in files.items():
        (base / rel).mkdir(parents=True, exist_ok=True)
        for name, value in values.items():
            (base / rel / name).write_text(f"{value}\n")


def test_cgroup_v2_room(monkeypatch, tmp_path):
    sys_cg = fake_cgroups(monkeypatch, tmp_path, "0::/job")
    write_levels(sys_cg, {"job": {"memory.max": 3000000000, "memory.current": 1000000000}})
    assert resources._cgroup_room() == 2_000_000_000
    (sys_cg / "job" / "memory.max").write_text("max\n")
    assert resources._cgroup_room() is None


def test_cgroup_v2_limit_of_a_parent_is_seen(monkeypatch, tmp_path):
    """Slurm's layout: the limit is on the job's cgroup, the process runs in a step below it
    whose own memory.max is "max"; the least room over the levels counts."""
    sys_cg = fake_cgroups(monkeypatch, tmp_path, "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0")
    job = "system.slice/slurmstepd.scope/job_7"
    write_levels(sys_cg, {
        "": {"memory.current": 50_000_000_000},  # the root cgroup has no memory.max
        "system.slice": {"memory.max": "max", "memory.current": 40_000_000_000},
        job: {"memory.max": 4_000_000_000, "memory.current": 1_000_000_000},
        f"{job}/step_0": {"memory.max": 8_000_000_000, "memory.current": 900_000_000},
        f"{job}/step_0/user/task_0": {"memory.max": "max", "memory.current": 800_000_000},
    })  # fmt: skip
    assert resources._cgroup_room() == 3_000_000_000
    (sys_cg / job / "memory.max").write_text("max\n")
    assert resources._cgroup_room() == 7_100_000_000


def test_cgroup_v1_limit_of_a_parent_is_seen(monkeypatch, tmp_path):
    sys_cg = fake_cgroups(
        monkeypatch, tmp_path, "12:cpu,cpuacct:/slurm/uid_1/job_7\n4:memory:/slurm/uid_1/job_7/step_0"
    )
    unlimited = 9223372036854771712  # v1's "no limit"
    write_levels(sys_cg / "memory", {
        "slurm/uid_1/job_7": {"memory.limit_in_bytes": 2_000_000_000, "memory.usage_in_bytes": 500_000_000},
        "slurm/uid_1/job_7/step_0": {"memory.limit_in_bytes": unlimited, "memory.usage_in_bytes": 400_000_000},
    })  # fmt: skip
    assert resources._cgroup_room() == 1_500_000_000
