extension AppConfiguration {
  /// The text of `--help` (`strip-demo` writes one without the demo's backend, accounts and
  /// links).
  static let usage = """
    Usage: Trellis [options]

    Runs the Trellis demo app in the terminal. With no options it uses the embedded demo
    backend (in process); sign in as alice / alice1234, bob / bob1234 or carol / carol1234.
    When standard input is not a terminal, it reads script commands from it instead.

    Options:
      --server URL         Use the backend at URL (start one with: swift run DemoServer).
                           Plain http is accepted only on this machine (127.0.0.1,
                           localhost); elsewhere use https.
      --allow-insecure-http
                           Accept a plain http --server on another machine: the password
                           and tokens then cross the network unencrypted.
      --script FILE        Run the script commands in FILE, then exit (status 1 on failure).
      --log-level LEVEL    trace, debug, info, notice, warning or error (default: info;
                           warning in script mode).
      --log-file PATH      Write logs to PATH (a file: made private, moved to PATH.1
                           at 4 MiB, emptied when its user leaves).
      --data-dir PATH      Keep the session, what the screens showed and drafts in
                           PATH (default: $XDG_DATA_HOME/trellis).
      --no-cache           Keep no server answers between launches (and erase the ones
                           kept): screens start empty until the server answers.
      --instant            Embedded backend without its demo latency.
      --token-lifetime N   Embedded backend: access tokens expire after N seconds (default
                           30; 300 with --instant), to watch the session refresh.
      --quiet              Script mode: print only failures, not each screen.
      --open LINK          Open LINK once started (after sign-in if needed): trellis://tasks,
                           trellis://tasks/ID, trellis://compose?project=ID,
                           trellis://profile or trellis://home.
      --trace REACTOR      Log each action, mutation and state change of the reactor type
                           REACTOR (for example LoginViewReactor; * for all; repeatable),
                           secrets redacted. Logs at info level.
      -h, --help           Show this help.

    Environment: TRELLIS_SERVER and TRELLIS_LOG_LEVEL set the defaults of --server and
    --log-level; TRELLIS_TRACE=A,B traces reactors as --trace does.

    A script (--script, or lines on standard input) starts from the saved session, as the app
    does: after one that signed in, the next starts signed in. Give it a --data-dir of its own
    to start signed out. The embedded backend's data lives in memory: it starts afresh on each
    launch (the session and its sign-in are what is kept).

    Script commands, one per line (# starts a comment):
      tap <button>                 type <field> <text>        select <list> <number|title>
      toggle <checklist> <item>    back                       menu [item]
      wait <text>                  expect <text>              expect-not <text>
      wait-gone <text>             dump                       print <text>
      sleep <seconds>              open <link>                quit
    Keys: Tab/arrows move, Enter chooses, Page Up/Down and Home/End move in a list, Esc goes
    back, Ctrl-O opens the menu, Ctrl-Q (or Ctrl-C) quits; with unsaved input Esc asks first,
    and so does Ctrl-Q unless the form keeps it as a draft for the next launch. A paste goes
    into the text field as text.
    """
}
