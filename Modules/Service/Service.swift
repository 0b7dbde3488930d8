// The Service layer. See README.md for what belongs here.
