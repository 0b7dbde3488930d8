import Core
import Foundation

/// Logs one line per request and one per outcome through Core's `Logger`, with secrets
/// redacted: `Authorization` and other sensitive headers always, and sensitive JSON or form
/// body fields when bodies are logged.
///
/// ```
/// [info] [HTTP] → GET /me
/// [info] [HTTP] ← 200 GET /me (12 ms, 214 bytes)
/// [warning] [HTTP] ✕ GET /projects: Transport failure: timedOut
/// ```
public struct LoggingPlugin: HTTPPlugin {
  private let logger: Logger
  private let redactor: SecretRedactor
  private let logsCurl: Bool
  private let logsBodies: Bool

  /// Creates the plugin.
  ///
  /// - Parameters:
  ///   - logger: Where lines go (category `HTTP` by default).
  ///   - redactor: Decides which header and body fields are secret.
  ///   - logsCurl: Also log each request as a `curl` command (at `debug`), secrets redacted.
  ///   - logsBodies: Also log request and response bodies (at `debug`), secrets redacted.
  public init(
    logger: Logger = Logger(category: "HTTP"), redactor: SecretRedactor = SecretRedactor(),
    logsCurl: Bool = false, logsBodies: Bool = false
  ) {
    self.logger = logger
    self.redactor = redactor
    self.logsCurl = logsCurl
    self.logsBodies = logsBodies
  }

  /// `"logging"`.
  public var name: String { "logging" }

  /// Logs the request line, and its cURL form and body when enabled.
  public func willSend(_ request: HTTPRequest, context: HTTPCallContext) async {
    guard logger.isEnabled(.info) else { return }
    let attempt = context.attempt > 1 ? " (attempt \(context.attempt))" : ""
    logger.info("→ \(request.method) \(request.target)\(attempt)")
    if logsCurl, logger.isEnabled(.debug) {
      logger.debug("\(request.curlCommand(redactor: redactionFunction(for: request)))")
    }
    if logsBodies, logger.isEnabled(.debug), let body = request.body, !body.isEmpty {
      logger.debug(
        "  request body: \(redactedBody(body, contentType: request.headers["Content-Type"]))")
    }
  }

  /// Logs the status (or the error), the duration and the size.
  public func didReceive(_ result: HTTPResult, for request: HTTPRequest, context: HTTPCallContext)
    async
  {
    guard logger.isEnabled(.info) else { return }
    let elapsed = context.sentAt.map { "\(Self.milliseconds(ContinuousClock.now - $0)) ms, " } ?? ""
    switch result {
    case .success(let response):
      let size = "\(elapsed)\(response.body.count) bytes"
      logger.info("← \(response.status) \(request.method) \(request.target) (\(size))")
      logBody(of: response)
    case .failure(.unacceptableStatus(let response)):
      let size = "\(elapsed)\(response.body.count) bytes"
      logger.warning("← \(response.status) \(request.method) \(request.target) (\(size))")
      logBody(of: response)
    case .failure(let error):
      logger.warning("✕ \(request.method) \(request.target): \(error)")
    }
  }

  private func logBody(of response: HTTPResponse) {
    guard logsBodies, logger.isEnabled(.debug), !response.body.isEmpty else { return }
    logger.debug(
      "  response body: \(redactedBody(response.body, contentType: response.headers["Content-Type"]))"
    )
  }

  private func redactionFunction(for request: HTTPRequest) -> HTTPRequest.SecretRedactorFunction {
    let plugin = self
    let contentType = request.headers["Content-Type"]
    return { name, value in
      if name == "body" { return plugin.redactedBody(Data(value.utf8), contentType: contentType) }
      return plugin.redactor.isSensitive(name) ? LogMessage.redactedPlaceholder : value
    }
  }

  /// The body as text with sensitive JSON or form fields redacted; other bodies by size.
  func redactedBody(_ body: Data, contentType: String?) -> String {
    let type = contentType?.lowercased() ?? ""
    if type.contains("json"), let object = try? JSONSerialization.jsonObject(with: body) {
      let redacted = redactor.redacting(jsonObject: object)
      if let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys]) {
        return String(decoding: data, as: UTF8.self)
      }
    }
    if type.contains("x-www-form-urlencoded") {
      return String(decoding: body, as: UTF8.self).split(separator: "&").map { pair in
        let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
        return redactor.isSensitive(name.removingPercentEncoding ?? name)
          ? "\(name)=\(LogMessage.redactedPlaceholder)" : String(pair)
      }.joined(separator: "&")
    }
    if type.hasPrefix("text/") { return String(decoding: body, as: UTF8.self) }
    return "<\(body.count) bytes of \(type.isEmpty ? "unknown type" : type)>"
  }

  static func milliseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
  }
}
