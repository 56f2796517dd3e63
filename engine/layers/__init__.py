"""The pieces a forward is made of: linear layers on their chosen kernels (float, int8, GGUF blocks),
attention (eager and SDPA), RoPE, RMSNorm, SwiGLU, and the paged KV tensors attention reads and writes."""
