"""The pure core: each function on hand-made data, and what it computes on the real snapshot."""
