"""The tracker: the game kept from what is played on the table. Two rooms:

- `tracker.rules`: the Hearthtop rules. The event log, the engine that applies it and keeps
  the score, the hero files, legality. Knows nothing of pixels.
- `tracker.camera`: the camera path. Frames in (`vision` names the cards, `calibration` puts
  them on the table), stable views of the table, the events that explain them (applied by
  the rules' engine), questions where the camera cannot tell; speaks to the rules only in
  events.

The server (`companion_api`) stands on both, through their front doors: the names each
room's package exports (`tests/test_layering.py`).
"""
