"""The server's defaults, in a module that imports nothing, so the CLI's parser reads them without
loading FastAPI."""

MAX_BODY_BYTES = 4 << 20  # a request body above this is a 413 before it is read
