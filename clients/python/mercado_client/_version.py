"""Generated from VERSION by scripts/generate-version.sh (make generate): do not edit."""

__version__ = "0.1.0"
