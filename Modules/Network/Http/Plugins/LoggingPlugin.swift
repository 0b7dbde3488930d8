import Foundation
import TrellisCore

/// Logs one line per request and one per outcome through Core's `Logger`, with secrets
/// redacted: sensitive query items (`?access_token=`) in every URL it prints, `Authorization`
/// and the other sensitive headers always, and sensitive JSON or form body fields when bodies
/// are logged. Plain-text bodies are not logged unless asked for (a text body has no field
/// names to redact by), and no body longer than ``maximumLoggedBodySize`` is parsed or printed.
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
  private let logsTextBodies: Bool
  /// The longest body (in bytes) that is parsed and printed; a longer one is logged by size.
  public let maximumLoggedBodySize: Int

  /// Creates the plugin.
  ///
  /// - Parameters:
  ///   - logger: Where lines go (category `HTTP` by default).
  ///   - redactor: Decides which headers, query items and body fields are secret.
  ///   - logsCurl: Also log each request as a `curl` command (at `debug`), secrets redacted.
  ///   - logsBodies: Also log JSON and form request and response bodies (at `debug`),
  ///     secrets redacted.
  ///   - logsTextBodies: Also log `text/*` bodies as they are. Off by default: nothing in free
  ///     text can be told apart as a secret.
  ///   - maximumLoggedBodySize: The longest body parsed and printed; longer ones are logged by
  ///     size only.
  public init(
    logger: Logger = Logger(category: "HTTP"), redactor: SecretRedactor = .standard,
    logsCurl: Bool = false, logsBodies: Bool = false, logsTextBodies: Bool = false,
    maximumLoggedBodySize: Int = 4096
  ) {
    self.logger = logger
    self.redactor = redactor
    self.logsCurl = logsCurl
    self.logsBodies = logsBodies
    self.logsTextBodies = logsTextBodies
    self.maximumLoggedBodySize = maximumLoggedBodySize
  }

  /// `"logging"`.
  public var name: String { "logging" }

  /// Logs the request line, and its cURL form and body when enabled.
  public func willSend(_ request: HTTPRequest, context: HTTPCallContext) async {
    guard logger.isEnabled(.info) else { return }
    let attempt = context.attempt > 1 ? " (attempt \(context.attempt))" : ""
    logger.info("→ \(request.method) \(request.target(redactedBy: redactor))\(attempt)")
    if logsCurl, logger.isEnabled(.debug) {
      let contentType = request.headers["Content-Type"]
      let plugin = self
      logger.debug(
        "\(request.curlCommand(redactor: redactor) { plugin.redactedBody($0, contentType: contentType) })"
      )
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
    let elapsed = context.sentAt.map { "\((ContinuousClock.now - $0).inMilliseconds) ms, " } ?? ""
    switch result {
    case .success(let response):
      let size = "\(elapsed)\(response.body.count) bytes"
      logger.info(
        "← \(response.status) \(request.method) \(request.target(redactedBy: redactor)) (\(size))")
      logBody(of: response)
    case .failure(.unacceptableStatus(let response)):
      let size = "\(elapsed)\(response.body.count) bytes"
      logger.warning(
        "← \(response.status) \(request.method) \(request.target(redactedBy: redactor)) (\(size))")
      logBody(of: response)
    case .failure(let error):
      logger.warning("✕ \(request.method) \(request.target(redactedBy: redactor)): \(error)")
    }
  }

  private func logBody(of response: HTTPResponse) {
    guard logsBodies, logger.isEnabled(.debug), !response.body.isEmpty else { return }
    logger.debug(
      "  response body: \(redactedBody(response.body, contentType: response.headers["Content-Type"]))"
    )
  }

  /// The body as text with sensitive JSON or form fields redacted; other bodies, and any body
  /// longer than ``maximumLoggedBodySize``, by size.
  func redactedBody(_ body: Data, contentType: String?) -> String {
    let type = contentType?.lowercased() ?? ""
    let bySize = "<\(body.count) bytes of \(type.isEmpty ? "unknown type" : type)>"
    guard body.count <= maximumLoggedBodySize else { return bySize }
    if type.contains("json"), let object = try? JSONSerialization.jsonObject(with: body) {
      let redacted = redactor.redacting(jsonObject: object)
      if let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys]) {
        return String(decoding: data, as: UTF8.self)
      }
    }
    if type.contains("x-www-form-urlencoded") {
      return redactor.redacting(formEncoded: String(decoding: body, as: UTF8.self))
    }
    if type.hasPrefix("text/"), logsTextBodies { return String(decoding: body, as: UTF8.self) }
    return bySize
  }
}
