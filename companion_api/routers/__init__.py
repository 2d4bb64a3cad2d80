"""The server's routes, one router a concern: `state` (reading the game), `events` (changing
it), `questions` (what the camera asks), `games` (the games kept), `live` (the WebSocket and
the camera's stream), `setup` (the camera's setup check) and `pages` (phone, overlay,
watch, setup)."""
