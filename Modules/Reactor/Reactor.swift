// The Reactor layer. See README.md for what belongs here.
