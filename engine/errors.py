"""The one exception type for what a user can fix, so that everything else is known to be a bug."""


class LabError(ValueError):
    """Bad input, a model that cannot load, a run over a cap: the message is written for the user
    and shown as it is (the app's message, the server's 400, the CLI's one line). Any other
    exception, a ValueError from numpy or torch included, is a bug: logged with its traceback and
    shown as an internal error. A ValueError subclass, so callers that catch ValueError still do."""
