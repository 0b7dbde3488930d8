// The Front layer. See README.md for what belongs here.
