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


def test_cgroup_v2_room(monkeypatch, tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "cgroup").write_text("0::/job\n")
    cg = tmp_path / "sys" / "job"
    cg.mkdir(parents=True)
    (cg / "memory.max").write_text("3000000000\n")
    (cg / "memory.current").write_text("1000000000\n")
    real_path = resources.Path

    def fake(p):
        p = str(p)
        if p == "/proc/self/cgroup":
            return real_path(tmp_path / "proc" / "cgroup")
        if p.startswith("/sys/fs/cgroup"):
            return real_path(str(tmp_path / "sys") + p.removeprefix("/sys/fs/cgroup"))
        return real_path(p)

    monkeypatch.setattr(resources, "Path", fake)
    assert resources._cgroup_room() == 2_000_000_000
    (cg / "memory.max").write_text("max\n")
    assert resources._cgroup_room() is None
