"""Shipped ONNX models and their training code (to come: issue 3)."""
