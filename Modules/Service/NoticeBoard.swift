import Foundation
import TrellisCore

/// Something the app must tell the user wherever they are now: work done in the background
/// (a change sent when the network returned) that went wrong after the screen that started it
/// was left.
public struct Notice: Sendable, Equatable, Identifiable {
  /// Tells notices apart (two alike are still two).
  public let id: UUID
  /// A short title ("A change was not saved").
  public var title: String
  /// What happened, as a sentence.
  public var message: String

  /// A notice.
  public init(id: UUID = UUID(), title: String, message: String) {
    self.id = id
    self.title = title
    self.message = message
  }
}

/// The notices the user has not seen yet, for whichever screen is showing (the app's banner
/// shows them above every screen, so one posted while the user is elsewhere, or before any
/// screen exists, still reaches them).
///
/// A notice stays until a screen marks it seen. They are the signed-in user's: the board is
/// emptied when the user signs out or another user signs in, so no notice reaches someone
/// else (a session the server ended keeps them, for the same user's next sign-in).
/// It keeps the newest ``limit``. It lives in memory: the work a notice is about keeps its own
/// data (a refused new task's text is kept as a draft), so an app quit before a notice is
/// shown loses the sentence, not the user's work.
public final class NoticeBoard: Sendable {
  /// The notices not seen yet, oldest first.
  public let unseen = Relay<[Notice]>([])
  /// The most notices it keeps (the oldest go first, with a log line).
  public let limit: Int
  private let logger: Logger
  /// Whose notices it holds (`nil`: nobody's), when it follows a session; a change of owner and
  /// a post happen one at a time, so a notice posted for the user who just left never lands
  /// after the board was emptied for the next.
  private let owner: Lock<(userID: Int?, follows: Bool)>
  private let observation: ObservationToken?

  /// A board of at most `limit` notices, emptied when `sessionState` says the user signed out
  /// or another user signed in.
  public init(
    sessionState: Relay<SessionState>? = nil, limit: Int = 50,
    logger: Logger = Logger(category: "Notices")
  ) {
    self.limit = max(1, limit)
    self.logger = logger
    let unseen = unseen
    let owner = Lock((userID: sessionState?.value.user?.id, follows: sessionState != nil))
    self.owner = owner
    observation = sessionState?.observe { session in
      owner.withLock { owner in
        let clears: Bool
        switch session {
        case .signedOut:
          owner.userID = nil
          clears = true
        case .expired:
          // The same user may sign in again: theirs wait.
          clears = false
        case .signedIn(let user):
          clears = owner.userID != user.id
          owner.userID = user.id
        }
        if clears { unseen.send([]) }
      }
    }
  }

  /// Adds `notice` after the others (the oldest goes if it holds ``limit`` already), if it is
  /// for the user whose notices the board holds: `userID` is the user signed in when the work
  /// it is about began (`nil`: whoever is signed in now).
  public func post(_ notice: Notice, forUser userID: Int? = nil) {
    var dropped = 0
    let isPosted = owner.withLock { owner -> Bool in
      if owner.follows, let userID, owner.userID != userID { return false }
      unseen.update { notices in
        notices.append(notice)
        dropped = max(0, notices.count - limit)
        notices.removeFirst(dropped)
      }
      return true
    }
    if !isPosted { logger.notice("Dropped a notice for a user no longer signed in") }
    if dropped > 0 { logger.warning("Dropped \(dropped) notice(s) never seen: \(limit) wait") }
  }

  /// Marks the notice `id` seen: it leaves ``unseen``.
  public func markSeen(_ id: Notice.ID) {
    guard unseen.value.contains(where: { $0.id == id }) else { return }
    unseen.update { $0.removeAll { $0.id == id } }
  }
}
