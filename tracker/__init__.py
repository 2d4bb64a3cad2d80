"""Card ids, the Hearthtop rules engine, hero definitions and the event log."""
