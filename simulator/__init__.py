"""Synthetic data, never run live: real card art on random tables, seen by a random webcam.

Training samples and scenes, the tests' scenes and the end-to-end game videos (DESIGN.md's
`simulate`) are drawn with it; nothing that runs live imports it (`tests/test_layering.py`).

- `cardart`: the card designs of Debian's card-deck packages, drawn once and cached as PNG
- `backs`: card backs of no design
- `scene`: what a synthetic table holds, in table millimetres: cards, decals, hands
- `layout`: random but plausible Hearthtop tables, reproducible from a seed
- `camera`: a pinhole webcam above the table: its pose, the table -> image homography
- `textures`: table surfaces; `hands`: hands reaching in; `photometric`: a cheap webcam's
  light, blur, noise and JPEG
- `render`: a scene seen by its camera -> an image and exact labels
  (`python -m simulator.render --seed 1 --out scene.png --annotate`)
- the game simulator (`hearthtop-companion simulate`, `docs/table.md`), which replays a
  game's log with the rules (`tracker`): `game_video` (the command), `game_table` (the
  rules' view laid out in the zones), `game_events` and `game_motion` (each event played
  card by card by the players' hands), `game_frames` (the frames), `game_faults` (camera
  faults); `game_views`: what a perfect camera would see of a game, for the tracker's
  benchmark; `demo_recording`: the recipe of the recording `run --demo` plays
  (`python -m simulator.demo_recording`)
"""
