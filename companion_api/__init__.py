"""The server and the command line of Hearthtop Companion: the phone, watch and overlay
pages, the API and its WebSocket, the data folder, and `hearthtop-companion`. It follows the
camera's game through `tracker.camera` and keeps the phone's through `tracker.rules`."""
