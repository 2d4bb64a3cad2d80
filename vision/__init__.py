"""Capture, card detection and classification (to come: issue 3), and the synthetic table
renderer that training data and end-to-end game videos share (`vision.render`)."""
