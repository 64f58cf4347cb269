"""MiniGrid simulator layer (work in progress)."""
