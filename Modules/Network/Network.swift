// The Network layer. See README.md for what belongs here.
