"""The CPU tensor-allocation tracker reports what was allocated and subtracts what was freed."""

from __future__ import annotations

import torch

from engine.observe.memory import measure_peak

CPU = torch.device("cpu")


def test_known_allocations_and_frees():
    with measure_peak(CPU) as r:
        a = torch.empty(1000, 1000)  # 4,000,000 bytes
        b = torch.empty(500, 1000)  # 2,000,000
        del a
        c = torch.empty(250, 1000)  # 1,000,000
    assert r.peak_bytes == 6_000_000
    assert r.retained_bytes == 3_000_000
    del b, c


def test_views_and_in_place_ops_allocate_nothing():
    x = torch.zeros(1000)
    with measure_peak(CPU) as r:
        x.add_(1)
        _ = x[10:20].view(2, 5)
        x.transpose(0, 0)
    assert r.peak_bytes == 0


def test_temporaries_count_toward_the_peak():
    x = torch.randn(512, 512)
    with measure_peak(CPU) as r:
        y = (x @ x).sum()  # the 1 MiB product lives until sum() is done
    assert r.peak_bytes >= 512 * 512 * 4 and r.retained_bytes == y.untyped_storage().nbytes()


def test_disabled_probe_reads_nothing():
    with measure_peak(CPU, enabled=False) as r:
        torch.empty(1000)
    assert r.peak_bytes == 0 and r.method == "none"


def test_labels_split_the_peak():
    from engine.observe.memory import label

    with measure_peak(CPU) as r:
        a = torch.empty(250, 1000)  # 1 MB of activations
        with label("attention scores"):
            s = torch.empty(500, 1000)  # 2 MB of scores
        del s
        del a
    assert r.peak_by_label == {"activations": 1_000_000, "attention scores": 2_000_000}
