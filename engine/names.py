"""The names of the players in games the engine seats by itself: random games and demos."""

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")
"""Seat by seat, one for each of the six seats a table may have."""
