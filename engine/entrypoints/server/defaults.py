"""The server's defaults, in a module that imports nothing, so the CLI's parser reads them without
loading FastAPI."""

MAX_BODY_BYTES = 4 << 20  # a request body above this is a 413 before it is read
API_KEY_ENV = "PDLAB_API_KEY"  # --api-key's default
# A disaggregated pair's shared secret: workers take hand-offs only from the router that shows it
# (set by `serve --disaggregate` and by launch.py for the pairs it starts; --handoff-token otherwise).
HANDOFF_TOKEN_ENV = "PDLAB_HANDOFF_TOKEN"
