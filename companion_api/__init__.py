"""The web server, pages and command line of Hearthtop Companion."""
