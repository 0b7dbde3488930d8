import Foundation
import TrellisCore
import TrellisNetwork

/// How the app was asked to run: from command-line options, then environment variables.
struct AppConfiguration: Equatable {
  /// The backend's address (`--server`); `nil` leaves it to the composition root (the demo's
  /// runs its embedded backend in process).
  var server: URL?
  /// A script to run instead of the interactive terminal UI.
  var scriptPath: String?
  /// Whether standard input is a script (it is not a terminal and no script file was given).
  var readsScriptFromStandardInput = false
  /// The lowest log level written, when set by an option or the environment.
  var explicitLogLevel: LogLevel?
  /// Where logs go; default: `trellis.log` in the data directory (interactive) or standard
  /// error (script).
  var logFile: String?
  /// Where the session is saved; default: the XDG data directory.
  var dataDirectory: String?
  /// Run the demo's embedded backend without its latency (`--instant`; nothing else uses it).
  var isInstant = false
  /// How long the embedded demo backend's access tokens live (`--token-lifetime`), to watch
  /// refreshes happen; `nil` keeps the demo's.
  var demoTokenLifetime: Duration?
  /// In script mode, print only failures (not each changed screen).
  var isQuiet = false
  /// Whether `--server` may be plain `http` on another machine, where the password and
  /// tokens cross the network unencrypted.
  var allowsInsecureHTTP = false
  /// The reactor types whose actions, mutations and state changes are logged (`--trace`,
  /// `TRELLIS_TRACE`; see `ReactorTrace`).
  var tracedReactors: [String] = []
  /// A link to open once the app starts (`--open`), after sign-in if needed.
  var linkToOpen: String?
  /// Whether the server's answers are kept on the device between launches (`--no-cache`
  /// turns it off: the screens then start empty, and what earlier launches kept is erased).
  var keepsAnswers = true

  /// What parsing can end in besides a configuration.
  enum ParseError: Error, Equatable {
    /// `--help` was given.
    case helpRequested
    /// An option is unknown or its value is missing or invalid.
    case invalid(String)
  }

  /// Parses `arguments` (without the program name) over `environment`.
  init(arguments: [String], environment: [String: String], standardInputIsTerminal: Bool)
    throws(ParseError)
  {
    var serverText = environment["TRELLIS_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
    if let level = environment["TRELLIS_LOG_LEVEL"], !level.isEmpty {
      guard let parsed = LogLevel(name: level) else {
        throw .invalid("TRELLIS_LOG_LEVEL must be one of \(Self.levelNames), not \"\(level)\"")
      }
      explicitLogLevel = parsed
    }
    var iterator = arguments.makeIterator()
    func value(for option: String) throws(ParseError) -> String {
      guard let value = iterator.next(), !value.hasPrefix("--") else {
        throw .invalid("\(option) needs a value")
      }
      return value
    }
    while let argument = iterator.next() {
      switch argument {
      case "-h", "--help": throw .helpRequested
      case "--server": serverText = try value(for: argument)
      case "--allow-insecure-http": allowsInsecureHTTP = true
      case "--script": scriptPath = try value(for: argument)
      case "--log-level":
        let name = try value(for: argument)
        guard let level = LogLevel(name: name) else {
          throw .invalid("--log-level must be one of \(Self.levelNames), not \"\(name)\"")
        }
        explicitLogLevel = level
      case "--log-file": logFile = try value(for: argument)
      case "--data-dir": dataDirectory = try value(for: argument)
      case "--instant": isInstant = true
      case "--token-lifetime":
        let text = try value(for: argument)
        guard let seconds = Int(text), (1...86_400).contains(seconds) else {
          throw .invalid(
            "--token-lifetime needs a number of seconds from 1 to 86400, not \"\(text)\"")
        }
        demoTokenLifetime = .seconds(seconds)
      case "--quiet": isQuiet = true
      case "--no-cache": keepsAnswers = false
      case "--open": linkToOpen = try value(for: argument)
      case "--trace":
        let names = try value(for: argument).split(separator: ",").map(String.init)
        guard
          !names.isEmpty,
          names.allSatisfy({ name in
            name == "*"
              || name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
          })
        else {
          throw .invalid("--trace needs reactor type names such as LoginViewReactor, or *")
        }
        tracedReactors += names
      default: throw .invalid("unknown option \"\(argument)\"")
      }
    }
    if let serverText {
      server = try Self.serverURL(serverText, allowingInsecureHTTP: allowsInsecureHTTP)
    }
    readsScriptFromStandardInput = scriptPath == nil && !standardInputIsTerminal
    isTracing =
      !tracedReactors.isEmpty || !(environment[ReactorTrace.environmentVariable] ?? "").isEmpty
  }

  /// Whether any reactor is traced (by option or environment).
  private(set) var isTracing = false

  /// Whether the app runs a script rather than the interactive UI.
  var isScripted: Bool { scriptPath != nil || readsScriptFromStandardInput }

  /// The lowest log level written: as set, else `warning` for scripts (their output is the
  /// screens) unless a reactor is traced, and `info` for the interactive app (which logs to a
  /// file).
  var logLevel: LogLevel { explicitLogLevel ?? (isScripted && !isTracing ? .warning : .info) }

  private static var levelNames: String {
    LogLevel.allCases.map(\.description).joined(separator: ", ")
  }

  private static func serverURL(_ text: String, allowingInsecureHTTP: Bool) throws(ParseError)
    -> URL
  {
    guard let url = URL(string: text), let origin = HTTPOrigin(url),
      ["http", "https"].contains(origin.scheme)
    else {
      throw .invalid("--server needs an http(s) URL such as http://127.0.0.1:8080, not \"\(text)\"")
    }
    if origin.scheme == "http", !origin.isLoopback, !allowingInsecureHTTP {
      throw .invalid(
        "--server \(text) is plain http on another machine: the password and tokens would "
          + "cross the network unencrypted. Use https, or pass --allow-insecure-http if this "
          + "network is yours")
    }
    return url
  }
}
