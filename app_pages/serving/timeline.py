"""What the timeline shows, computed from a finished run's records (no Streamlit, no Plotly).

Every request's life as segments over wall time: waiting (arrived, not in the batch), then one
segment per engine step it was part of, prefill (a whole prompt or a chunk) or decode (one token).
A step is one forward pass over the whole batch, so a decode that shares its step with a long
prefill lasts as long as that prefill: that is head-of-line blocking (C21), drawn to scale.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.observe.trace import RequestRecord, StepRecord, Trace


@dataclass
class Segment:
    seq_id: int
    label: str
    kind: str  # "waiting", "prefill" or "decode"
    start_s: float  # seconds since the workload started
    end_s: float
    step: int | None = None  # the engine step (None while waiting)
    num_tokens: int = 0  # tokens this request fed in that step
    context_len: int = 0  # its KV tokens after the step
    batch_tokens: int = 0  # tokens the whole step processed

    @property
    def ms(self) -> float:
        return (self.end_s - self.start_s) * 1e3


@dataclass
class BatchRow:
    """One sequence in one step's batch."""

    seq_id: int
    label: str
    phase: str
    num_tokens: int
    first_pos: int  # the first position fed (a prefill chunk covers first_pos .. context_len - 1)
    context_len: int
    prompt_len: int
    blocks: int  # KV blocks it holds after the step


def origin(trace: Trace) -> float:
    """The workload's t = 0: the earliest arrival (the first request arrives at 0 s)."""
    times = [r.arrival for r in trace.requests] + [s.start for s in trace.steps[:1]]
    return min(times) if times else 0.0


def ordered_requests(trace: Trace) -> list[RequestRecord]:
    return sorted(trace.requests, key=lambda r: (r.arrival, r.seq_id))


def row_names(trace: Trace, labels: dict[int, str]) -> dict[int, str]:
    """A distinct name per request (labels typed into the custom table may repeat), arrival order."""
    names: dict[int, str] = {}
    for r in ordered_requests(trace):
        name = labels.get(r.seq_id) or f"req {r.seq_id}"
        names[r.seq_id] = name if name not in names.values() else f"{name} (#{r.seq_id})"
    return names


def request_segments(trace: Trace, labels: dict[int, str]) -> list[Segment]:
    """Waiting and per-step segments of every request, in arrival order."""
    t0, names = origin(trace), row_names(trace, labels)
    scheduled: dict[int, list[tuple[int, StepRecord]]] = {}
    for i, step in enumerate(trace.steps):
        for q in step.seqs:
            scheduled.setdefault(q.seq_id, []).append((i, step))
    out = []
    for r in ordered_requests(trace):
        label = names[r.seq_id]
        waiting_since, last_index = r.arrival, None
        for i, step in scheduled.get(r.seq_id, []):
            if last_index is not None and i > last_index + 1:  # left the batch (preempted, or no budget)
                waiting_since = _end(trace.steps[last_index])
            if waiting_since is not None and step.start > waiting_since:
                out.append(Segment(r.seq_id, label, "waiting", waiting_since - t0, step.start - t0))
            q = next(x for x in step.seqs if x.seq_id == r.seq_id)
            out.append(
                Segment(
                    r.seq_id,
                    label,
                    q.phase,
                    step.start - t0,
                    _end(step) - t0,
                    step.step,
                    q.num_tokens,
                    q.context_len,
                    step.num_tokens,
                )
            )
            waiting_since, last_index = None, i
    return out


def _end(step: StepRecord) -> float:
    return step.start + step.ms / 1e3


def step_window(trace: Trace, index: int) -> tuple[float, float]:
    """Start and end of the index-th step, in seconds since the workload started."""
    step, t0 = trace.steps[index], origin(trace)
    return step.start - t0, _end(step) - t0


def batch_rows(trace: Trace, labels: dict[int, str], index: int) -> list[BatchRow]:
    """The batch of the index-th step: who ran, which phase, how many tokens each."""
    step = trace.steps[index]
    prompt_len = {r.seq_id: len(r.prompt_token_ids) for r in trace.requests}
    names = row_names(trace, labels)
    return [
        BatchRow(
            q.seq_id,
            names.get(q.seq_id, f"req {q.seq_id}"),
            q.phase,
            q.num_tokens,
            q.context_len - q.num_tokens,
            q.context_len,
            prompt_len.get(q.seq_id, 0),
            len(step.block_tables.get(q.seq_id, [])),
        )
        for q in step.seqs
    ]


@dataclass
class StepTotals:
    step: int
    prefill_tokens: int
    decode_tokens: int
    num_seqs: int
    num_waiting: int
    ms: float


def step_totals(trace: Trace) -> list[StepTotals]:
    """Per step: prefill and decode tokens (their sum is the budget used), batch size, queue, time."""
    return [
        StepTotals(
            s.step,
            sum(q.num_tokens for q in s.seqs if q.phase == "prefill"),
            sum(q.num_tokens for q in s.seqs if q.phase == "decode"),
            len(s.seqs),
            s.num_waiting,
            s.ms,
        )
        for s in trace.steps
    ]
