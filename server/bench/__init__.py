"""Benchmarks behind ``mercado bench``; each prints its figures as JSON."""
