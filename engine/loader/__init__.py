"""From a model name to a loaded model: finding and converting weights (safetensors, the bundled GGUF),
reading GGUF files, and timing which kernel each weight shape runs on this machine."""
