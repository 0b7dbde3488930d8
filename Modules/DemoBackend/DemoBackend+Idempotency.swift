import Foundation
import TrellisLoopbackServer

/// The writes a client sent with an `Idempotency-Key`, by user and key, with the answer each
/// got: a write sent again with its key (its answer was lost, or an outbox sent it twice) is
/// answered as the first time and not made again. Bounded: the oldest records go first.
struct IdempotencyRecords {
  /// The most records kept (across users).
  static let limit = 2000

  /// What a key stands for.
  enum Record {
    /// The write is being made: a second one with the key waits for nothing (`409`).
    case inProgress(fingerprint: String)
    /// The write was made and answered so.
    case answered(fingerprint: String, ServerResponse)
  }

  /// What ``begin(_:fingerprint:)`` found.
  enum Start {
    /// A new key: make the write, then ``finish(_:with:)``.
    case new
    /// Made before: answer this again.
    case replay(ServerResponse)
    /// The key was used for another request.
    case reused
    /// The same request is being made now.
    case inProgress
  }

  private var records: [String: Record] = [:]
  private var order: [String] = []

  /// Looks `key` up for a request of `fingerprint`, recording it as in progress if new.
  mutating func begin(_ key: String, fingerprint: String) -> Start {
    switch records[key] {
    case .inProgress(let recorded)?: return recorded == fingerprint ? .inProgress : .reused
    case .answered(let recorded, let response)?:
      return recorded == fingerprint ? .replay(response) : .reused
    case nil:
      records[key] = .inProgress(fingerprint: fingerprint)
      order.append(key)
      while records.count > Self.limit, !order.isEmpty {
        records.removeValue(forKey: order.removeFirst())
      }
      return .new
    }
  }

  /// Records the answer to `key`'s write; a failure of the server's (`5xx`) is forgotten, so
  /// the write is made when it is sent again.
  mutating func finish(_ key: String, with response: ServerResponse) {
    guard case .inProgress(let fingerprint)? = records[key] else { return }
    if response.status >= 500 {
      records.removeValue(forKey: key)
      order.removeAll { $0 == key }
    } else {
      records[key] = .answered(fingerprint: fingerprint, response)
    }
  }
}

extension DemoBackend {
  /// The name of the header a write's idempotency key comes in.
  static let idempotencyHeader = "Idempotency-Key"

  /// Makes the write `body` once per `Idempotency-Key` of `userID`'s: the same request sent
  /// again with its key gets the first answer again (with `Idempotent-Replayed: true`) and
  /// `body` is not run; the key sent with another method, path or body is refused (`422`), and
  /// while the first is being made (`409`). Without the header, `body` runs as it is.
  func idempotent(
    _ request: ServerRequest, userID: Int, _ body: () throws(DemoFailure) -> ServerResponse
  ) throws(DemoFailure) -> ServerResponse {
    guard let key = request.headers[Self.idempotencyHeader] else { return try body() }
    guard (1...255).contains(key.utf8.count),
      key.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
    else {
      throw .badRequest("An Idempotency-Key is 1 to 255 visible ASCII characters.")
    }
    // The method, path, body and precondition: the same key with another of them is another
    // request.
    let fingerprint =
      "\(request.method.rawValue) \(request.path) \(request.headers["If-Match"] ?? "") "
      + Self.canonical(request.body)
    let record = "\(userID) \(key)"
    switch state.withLock({ $0.idempotency.begin(record, fingerprint: fingerprint) }) {
    case .new: break
    case .replay(var response):
      response.headers["Idempotent-Replayed"] = "true"
      return response
    case .reused:
      throw DemoFailure(
        status: 422,
        body: Wire.Failure(
          code: "idempotency_key_reused",
          message: "This Idempotency-Key was sent with another request."))
    case .inProgress:
      throw DemoFailure(
        status: 409,
        body: Wire.Failure(
          code: "idempotency_in_progress",
          message: "The request with this Idempotency-Key is still being made; send it again."))
    }
    let response: ServerResponse
    do {
      response = try body()
    } catch {
      response = error.response
    }
    state.withLock { $0.idempotency.finish(record, with: response) }
    return response
  }

  /// A body as a fingerprint: JSON with its keys sorted (a client encoding the same value
  /// again may order them otherwise), else its bytes.
  static func canonical(_ body: Data) -> String {
    if let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
      let sorted = try? JSONSerialization.data(
        withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    {
      return String(decoding: sorted, as: UTF8.self)
    }
    return body.base64EncodedString()
  }

  /// The versions an `If-Match` header accepts (`"3"`, or a list `"3", "4"`; a bare `3` is
  /// taken too); `nil` without one, or for `*` (any version). A weak tag (`W/"3"`) matches no
  /// version: `If-Match` compares strongly (RFC 9110, 13.1.1).
  static func expectedVersions(in request: ServerRequest) throws(DemoFailure) -> Set<Int>? {
    guard let value = request.headers["If-Match"]?.trimmingCharacters(in: .whitespaces),
      value != "*"
    else { return nil }
    var versions: Set<Int> = []
    for tag in value.split(separator: ",") {
      let tag = tag.trimmingCharacters(in: .whitespaces)
      if tag.hasPrefix("W/") { continue }
      guard let version = Int(tag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) else {
        throw .badRequest("If-Match takes a task's version, such as \"3\".")
      }
      versions.insert(version)
    }
    return versions
  }
}
