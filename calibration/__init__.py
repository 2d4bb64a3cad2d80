"""Table homography and zone layouts (to come: issue 3)."""
