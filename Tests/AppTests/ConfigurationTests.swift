import Testing

@testable import Trellis

@Suite("Command-line options")
struct ConfigurationTests {
  private func parse(_ arguments: [String], environment: [String: String] = [:]) throws
    -> AppConfiguration
  {
    try AppConfiguration(
      arguments: arguments, environment: environment, standardInputIsTerminal: true)
  }

  @Test(arguments: [
    "http://127.0.0.1:8080", "http://localhost:8080", "http://127.0.0.2", "http://[::1]:8080",
    "https://api.example.com",
  ])
  func aServerOnThisMachineOrOverHTTPSIsAccepted(url: String) throws {
    #expect(try parse(["--server", url]).server?.absoluteString == url)
  }

  @Test func plainHTTPToAnotherMachineIsRefusedWithTheReasonUnlessAllowed() throws {
    for arguments in [
      ["--server", "http://10.0.0.5:8080"], ["--server", "http://api.example.com"],
    ] {
      #expect {
        try parse(arguments)
      } throws: { error in
        guard case .invalid(let message) = error as? AppConfiguration.ParseError else {
          return false
        }
        return message.contains("unencrypted") && message.contains("--allow-insecure-http")
      }
    }
    // The environment variable is checked the same way.
    #expect(throws: AppConfiguration.ParseError.self) {
      try parse([], environment: ["TRELLIS_SERVER": "http://api.example.com"])
    }
    let allowed = try parse(["--allow-insecure-http", "--server", "http://10.0.0.5:8080"])
    #expect(allowed.server?.host == "10.0.0.5")
  }

  @Test func theEmbeddedBackendsTokenLifetimeTakesWholeSecondsWithinADay() throws {
    #expect(try parse(["--token-lifetime", "2"]).demoTokenLifetime == .seconds(2))
    #expect(try parse([]).demoTokenLifetime == nil)
    for value in ["0", "-1", "1.5", "86401", "soon"] {
      #expect(
        throws: AppConfiguration.ParseError.invalid(
          "--token-lifetime needs a number of seconds from 1 to 86400, not \"\(value)\"")
      ) {
        try parse(["--token-lifetime", value])
      }
    }
  }

  @Test func traceNamesReactorsAndLowersAScriptsLogLevelToInfo() throws {
    let traced = try AppConfiguration(
      arguments: ["--trace", "LoginViewReactor,TaskListViewReactor", "--trace", "*"],
      environment: [:], standardInputIsTerminal: false)
    #expect(traced.tracedReactors == ["LoginViewReactor", "TaskListViewReactor", "*"])
    #expect(traced.logLevel == .info)
    let fromEnvironment = try AppConfiguration(
      arguments: [], environment: ["TRELLIS_TRACE": "LoginViewReactor"],
      standardInputIsTerminal: false)
    #expect(fromEnvironment.logLevel == .info)
    let plain = try AppConfiguration(
      arguments: [], environment: [:], standardInputIsTerminal: false)
    #expect(plain.logLevel == .warning)
    #expect(throws: AppConfiguration.ParseError.self) { try parse(["--trace", "Login View"]) }
    #expect(throws: AppConfiguration.ParseError.self) { try parse(["--trace"]) }
  }
}
