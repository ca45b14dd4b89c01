"""SQL files (package data)."""
