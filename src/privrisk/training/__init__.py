"""Training loops, incl. batched DP-SGD over many small models."""
