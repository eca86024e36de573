"""The rules core: sans-I/O judgement of a hold'em deal under a house-rule profile."""
