"""posecode-ssg: publish movement libraries written in Posecode v0.4 as static websites."""

__version__ = "0.1.0"
