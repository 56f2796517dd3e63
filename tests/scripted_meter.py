"""A stand-in for lab.busy.LoadMeter whose readings are scripted, for tests of what a busy reading
changes (re-takes, the busy note): no real load on the machine decides them."""

from __future__ import annotations

from lab.busy import MachineLoad


class ScriptedMeter:
    """Each call gives a meter; each stop() the script's next reading (True = busy: 1.5 of 2 cores),
    quiet once the script has run out."""

    def __init__(self, busy: list[bool], seconds: float = 0.05):
        self.script, self.seconds = iter(busy), seconds

    def __call__(self, *args, **kwargs):
        return self

    def start(self):
        return self

    def stop(self) -> MachineLoad:
        return MachineLoad(1.5 if next(self.script, False) else 0.0, 2, self.seconds)


def busy_first(rounds: int) -> ScriptedMeter:
    """Busy for the first `rounds` readings, quiet after."""
    return ScriptedMeter([True] * rounds, seconds=1.0)
