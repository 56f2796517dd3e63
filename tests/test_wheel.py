"""The package as a user gets it: `pip wheel .` on what a clone holds puts the C kernels' sources
(engine/kernels/csrc/*.c and *.h) in the wheel, and an install from that wheel, in a venv of its own,
builds them on first load and runs them (engine/kernels/native.py). Nothing is downloaded: the wheel
is built without isolation or dependencies, and torch comes from the project's own environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

from engine.kernels import native

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "engine" / "kernels" / "csrc"

# Run inside the installed copy: where the kernels module came from, and one product against torch's.
CHECK = textwrap.dedent("""
    import torch, torch.nn.functional as F
    from engine.kernels import native
    print("module:", native.__file__)
    assert native.library() is not None, native.build_error()
    w, x = torch.randn(48, 80), torch.randn(3, 80)
    got, ref = native.gemv(x, native.pack(w)), F.linear(x, w)
    assert (got - ref).abs().max().item() <= 1e-5 * ref.abs().max().item()
    print("kernels: loaded")
""")


def run(*args: str | Path, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{args}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def clone_files(dest: Path) -> Path:
    """The tracked files (what a fresh clone holds) copied to `dest`: the build leaves build/ and
    *.egg-info in the tree it builds, and the checkout stays as it was."""
    listed = run("git", "ls-files", "-z", cwd=ROOT).stdout.split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def venv_beside_ours(path: Path) -> Path:
    """A venv that sees this environment's packages (torch) after its own. `--system-site-packages`
    alone would not do it: a venv made from a venv's Python sees the base interpreter's packages."""
    run(sys.executable, "-m", "venv", "--without-pip", path)
    python = path / "bin" / "python"
    purelib = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "project_env.pth").write_text("\n".join(sorted(ours)) + "\n")  # appended after its own
    return python


@pytest.mark.slow
@pytest.mark.skipif(native._compiler() is None, reason="no C compiler here: nothing to build")
def test_an_install_from_the_wheel_builds_the_c_kernels(tmp_path):
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing says which files a clone holds")
    src = clone_files(tmp_path / "src")
    pip = (sys.executable, "-m", "pip")
    run(*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", tmp_path / "dist", src)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    sources = {f"engine/kernels/csrc/{p.name}" for p in [*CSRC.glob("*.c"), *CSRC.glob("*.h")]}
    assert {f"engine/kernels/csrc/{p.name}" for p in native.SOURCES} <= sources
    assert sources <= set(zipfile.ZipFile(wheel).namelist())

    python = venv_beside_ours(tmp_path / "venv")
    run(*pip, "--python", python, "install", "--no-deps", "--no-index", "-q", wheel)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PDLAB_") and k != "PYTHONPATH"}
    env["PDLAB_CACHE_DIR"] = str(tmp_path / "cache")
    out = run(python, "-c", CHECK, cwd=tmp_path, env=env).stdout  # cwd: the checkout is not on its path
    assert f"module: {tmp_path / 'venv'}" in out and "kernels: loaded" in out
    assert list((tmp_path / "cache" / "native").glob("*.so"))  # built there, from the wheel's sources
