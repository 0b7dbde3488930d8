// The Repository layer. See README.md for what belongs here.
