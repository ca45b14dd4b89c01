"""The churn options of a window (DESIGN §4.1) as one value the CLI, the Prefect flows and the
replays pass to the instances they build: `max_rescales`, `cooldown_seconds` and the rescale
penalty κ, defaults those of `solver.instance` (κ None: the default for the instance's slot
length)."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class ChurnRules:
    max_rescales: int | None = None        # running jobs that may change size in slot 0
    cooldown_seconds: float | None = None  # a job resized less long ago keeps its size
    rescale_penalty: float | None = None   # κ, node-slots per rescale (None: by slot length)

    def fields(self) -> dict[str, int | float | None]:
        """The `Instance` fields these set (keyword arguments of `Instance(...)`)."""
        return asdict(self)

    def label(self) -> str:
        """A short name for tables: `κ=1`, `κ=1, max_rescales=2`, `default κ`, …"""
        parts = ["default κ" if self.rescale_penalty is None else f"κ={self.rescale_penalty:g}"]
        if self.max_rescales is not None:
            parts.append(f"max_rescales={self.max_rescales}")
        if self.cooldown_seconds is not None:
            parts.append(f"cooldown={self.cooldown_seconds:g} s")
        return ", ".join(parts)
