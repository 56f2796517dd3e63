"""One rule for every chart the app draws: a title, a titled x and y axis, a legend, and log axes whose
ticks say their scale."""

from __future__ import annotations


def _text(title) -> str:
    return (title.get("text") if isinstance(title, dict) else title) or ""


def assert_labelled(spec: dict) -> None:
    """spec: a chart's Plotly JSON (as st.plotly_chart sends it)."""
    layout = spec["layout"]
    name = _text(layout.get("title"))
    assert name.strip(), "a chart without a title"
    axes = {k: _text(v.get("title")) for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))}
    for letter in "xy":
        assert any(v.strip() for k, v in axes.items() if k.startswith(letter)), f"{name}: no {letter} axis title"
    assert layout.get("showlegend") is True, f"{name}: no legend"
    assert any(d.get("showlegend", True) and d.get("name") for d in spec["data"]), f"{name}: nothing in the legend"
    for key, axis in layout.items():  # Plotly's own log ticks label 20 and 50 as bare "2" and "5"
        if key.startswith(("xaxis", "yaxis")) and axis.get("type") == "log":
            assert axis.get("ticktext") or axis.get("dtick") in (1, "1"), f"{name}: {key} is log without full labels"


def charts(at) -> dict[str, dict]:
    """Every Plotly chart an AppTest page drew, by title, as the JSON the browser gets; each one
    checked by assert_labelled on the way."""
    import json

    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    for spec in specs:
        assert_labelled(spec)
    return {s["layout"]["title"]["text"].replace("<br>", ""): s for s in specs}  # titles wrap for phones
