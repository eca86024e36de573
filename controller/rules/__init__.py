"""The rules core: sans-I/O judgement of a hold'em deal under a house-rule profile."""

from controller.rules.phases import Phase

__all__ = ["Phase"]
