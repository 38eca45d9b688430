"""Seeing the games: replays rebuilt from records (`replay`), the self-contained HTML report of a
run (`report_page`), and a game against a bot in the browser (`play_server`)."""
