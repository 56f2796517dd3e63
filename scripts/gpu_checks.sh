#!/usr/bin/env bash
# The checks a machine with a CUDA GPU runs, one after another, each under its own time limit:
#   ceilings   the roofline's ceilings on cuda (read bandwidth, GEMM rate per dtype, per-op overhead),
#              without the model
#   roofline   bench/roofline.py --device cuda (those ceilings, the calibration and the roofline points)
#   reference  tests/test_reference.py on cuda (our logits and tokens against transformers there)
#   decode     bench/decode.py --device cuda (batch-1 prefill and TPOT beside HF and the floors)
#   serving    bench/serving.py --device cuda (policies beside HF; fewer requests than on CPU)
#   speculative  bench/speculative.py --device cuda (prompt lookup beside plain decoding and HF's)
#
#   scripts/gpu_checks.sh OUT_DIR [STEP ...]      (all but ceilings unless steps are named)
#
# Each step's output goes to OUT_DIR/STEP.log and the benches' records are copied there. A step that
# fails or overruns is reported and the next one runs. PYTHON picks the interpreter (python3).
set -u
out=${1:?usage: scripts/gpu_checks.sh OUT_DIR [STEP ...]}
shift
steps=${*:-roofline reference decode serving speculative}
py=${PYTHON:-python3}
mkdir -p "$out"
export PYTHONUNBUFFERED=1

run_step() {
    local name=$1 limit=$2
    shift 2
    echo "== $name (limit ${limit} s)"
    local start=$SECONDS
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    tail -n 40 "$out/$name.log"
    echo "== $name: exit $rc after $((SECONDS - start)) s"
}

ceilings_py=$(
    cat <<'EOF'
from lab.hardware import measure_device_ceilings

d = measure_device_ceilings("cuda")
print(f"{d.device_name}, torch {d.torch_version}")
print(f"read bandwidth: {d.read_bytes_per_s / 1e9:.0f} GB/s")
for dtype, rate in d.gemm_flops_per_s.items():
    print(f"GEMM {dtype}: " + (f"{rate / 1e12:.1f} TFLOP/s" if rate else "not measured"))
print(f"kernels: {d.gemm_kernel}")
print(f"per-op overhead: {d.op_overhead_s * 1e6:.1f} us")
EOF
)

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
"$py" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))"
before=$(ls bench/results)
for step in $steps; do
    case $step in
    ceilings) run_step ceilings 120 "$py" -c "$ceilings_py" ;;
    roofline) run_step roofline 180 "$py" bench/roofline.py --device cuda ;;
    reference) run_step reference 300 "$py" -m pytest tests/test_reference.py --device cuda -q -p no:cacheprovider ;;
    decode) run_step decode 240 "$py" bench/decode.py --device cuda ;;
    speculative) run_step speculative 180 "$py" bench/speculative.py --device cuda ;;
    serving) run_step serving 300 "$py" bench/serving.py --device cuda --requests 16 --repeats 2 ;;
    *) echo "unknown step $step" ;;
    esac
done
for f in $(ls bench/results); do
    grep -qxF "$f" <<<"$before" || cp "bench/results/$f" "$out/"
done
ls "$out"
