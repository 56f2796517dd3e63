"""Model forwards built from engine/layers: the Llama family, and its decode step as one C call."""
