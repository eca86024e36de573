"""Hardware simulator: reader board, GPIO, PC/SC and a virtual dealer."""
