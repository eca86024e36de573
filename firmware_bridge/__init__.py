"""Drivers for the table hardware: reader board, GPIO console and sensors, PC/SC reader."""
