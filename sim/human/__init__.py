"""Playing against the strategies: the game behind ``five-up play``.

:mod:`sim.human.human_game` holds :class:`~sim.human.human_game.HumanGame`, one human seat
at a table of strategies, without terminal I/O (the command line reads the moves). It
drives :class:`sim.bridges.match_state.MatchState` (the one step core) and shows the human
seat only what it may know.
"""
