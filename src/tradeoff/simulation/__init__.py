"""Simulated people: oracles and their noise, whole simulated runs, the benchmark harness."""
