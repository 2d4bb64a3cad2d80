"""The Hearthtop rules: the event log, the engine that keeps the score, and hero files.

Nothing here knows of pixels. From the bottom up:

- `cards`: what a card is in Hearthtop (cost, stats, minion or spell); players, tokens.
- `events`: the event log's types (pydantic), read and written as JSON Lines.
- `alerts`: the stable alert codes an event can raise.
- `abilities`: what a hero file holds (abilities, effects, `HOOKS`) as values.
- `table`: the physical table: where each of the 53 cards lies; minions, weapons, sides.
- `board`: `Board`, what the rules' vocabulary may read of a game and do to it.
- `selectors`, `keywords`, `effects`, `secrets`: the vocabulary of the hero files
  (selectors and conditions, keywords, effect words, secret triggers), each name
  implemented once beside its mechanics.
- `heroes`: hero files loaded and checked against that vocabulary.
- `legality`: the rules an event must follow, and the moves they allow (for the bot, and
  every way to play a card or use the hero power, for people).
- `state`: the game state of the contract (pydantic).
- `narrate`: words for people: events, alert phrases, the board.
- `engine`: `Game`, which applies events, undoes them and shows its state.
- `questions`: what the camera could not decide, put to the phones with the events each
  answer stands for.
- `bot`: whole random legal games, for tests, benchmarks and the demo.
"""
