import Foundation
import TrellisCore

/// What became of the changes one ``Outbox/sendWaiting(with:)`` sent.
public struct OutboxReport<Change: Codable & Sendable & Equatable>: Sendable, Equatable {
  /// The changes the server made (or had made already: the same key), in the order sent.
  public var sent: [Outbox<Change>.Entry] = []
  /// The changes the server refused (gone, forbidden, not valid), each with why: they left the
  /// outbox, and the user should be told.
  public var refused: [Refusal] = []
  /// Why the sending stopped with changes still waiting (`nil`: none waits, or another send
  /// was under way): the server could not be reached, asked for later, or gave no answer that
  /// reads. They are sent again, with the same keys, at the next send.
  public var stoppedBy: RepositoryError?

  /// A change the server refused, and why.
  public struct Refusal: Sendable, Equatable {
    /// The change.
    public var entry: Outbox<Change>.Entry
    /// The server's reason.
    public var error: RepositoryError
  }

  /// An empty report.
  public init() {}
}

extension Outbox {
  /// Sends the waiting changes in order, one at a time, each with `send` (given the change and
  /// its idempotency key), until none is left or one cannot be sent now.
  ///
  /// A change the server answered leaves the outbox (``OutboxReport/sent``), and so does one
  /// it refused (``OutboxReport/refused``: a `4xx` other than those below). The sending stops,
  /// the change and those after it kept, when the server cannot be reached (`offline`), the
  /// session is being renewed (`unauthorized`, `cancelled`), the server failed or asks for
  /// later (`5xx`, `408`, `409`, `425`, `429`) or no answer reads (`invalidResponse`): the
  /// write may have been made, and the same key tells the server so at the next send.
  ///
  /// One send at a time per store (this outbox and its ``pinned()`` copies of the same user): a
  /// call while another sends returns an empty report at once, and the running one goes on to
  /// the changes added since, so none is left waiting. For work that outlives a sign-out, call
  /// it on ``pinned()``.
  public func sendWaiting(
    with send: (Change, _ idempotencyKey: String) async throws(RepositoryError) -> Void
  ) async -> OutboxReport<Change> {
    var report = OutboxReport<Change>()
    let slot = ObjectIdentifier(store.pinned())  // the user's store, however reached
    let starts = sending.withLock { sending -> Bool in
      guard sending[slot] == nil else {
        sending[slot] = true  // the running send goes round again
        return false
      }
      sending[slot] = false
      return true
    }
    guard starts else { return report }
    // Each change once a call: one still first after it was answered (its removal not kept)
    // stops the sending.
    var handled: Set<String> = []
    repeat {
      while let entry = entries.first, handled.insert(entry.id).inserted {
        do throws(RepositoryError) {
          try await send(entry.change, entry.id)
          remove(entry.id)
          report.sent.append(entry)
        } catch {
          guard Self.isRefusal(error) else {
            report.stoppedBy = error
            sending.withLock { _ = $0.removeValue(forKey: slot) }
            return report
          }
          remove(entry.id)
          report.refused.append(OutboxReport.Refusal(entry: entry, error: error))
        }
      }
    } while sending.withLock { sending -> Bool in
      // Another call came meanwhile: the changes it found are sent too.
      if sending[slot] == true {
        sending[slot] = false
        return true
      }
      sending.removeValue(forKey: slot)
      return false
    }
    return report
  }

  /// Whether the server's `error` is its last word on a change (sending it again changes
  /// nothing), rather than a reason to send it again later.
  public static func isRefusal(_ error: RepositoryError) -> Bool {
    switch error {
    case .offline, .cancelled, .unauthorized, .invalidResponse:
      false
    case .server(let status, _):
      status < 500 && !RepositoryError.tryAgainLaterStatuses.contains(status)
    case .forbidden, .notFound, .validation:
      true
    }
  }
}
