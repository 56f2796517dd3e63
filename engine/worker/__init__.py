"""One step's work on the model: the runner turns a scheduled batch into one forward, the sampler turns
its logits into tokens."""
