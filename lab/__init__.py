"""The lab's measurement and analysis on top of the engine: claim checks and their verdicts, sweeps,
complexity, memory experiments, rooflines and this machine's ceilings, GPU projections, serving
workloads, trace files. No Streamlit and no Plotly here: the pages draw, lab/ measures and judges."""
