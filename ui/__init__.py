"""The app's building blocks: Plotly figure builders (pure: records -> go.Figure), the strings
table, and small Streamlit widgets and panels the pages are assembled from."""
