"""Our C kernels (csrc/): built on the user's machine at first load and bound by ctypes (native.py),
and the CPU allocator setting that keeps their buffers warm (cpu_tuning.py)."""
