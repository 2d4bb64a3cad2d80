"""Capture, card detection and classification (to come: issue 3)."""
