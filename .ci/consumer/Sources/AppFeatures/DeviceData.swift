import Foundation
import TrellisCore
import TrellisRepository
import TrellisService

/// What the device keeps for the signed-in user, where an Apple app keeps it: the repositories'
/// answers in Caches (never backed up; the system may purge it when space runs low, and the
/// app then works from the network) and the drafts being typed in Application Support (backed
/// up: only the user made them). Each is a folder per user, erased at sign-out and when the
/// server ends the session.
public struct DeviceData: Sendable {
  /// Cached answers: give it to the repositories (`store: cache`).
  public let cache: UserLocalStore
  /// Drafts being typed.
  public let drafts: UserLocalStore
  /// Keeps both to the signed-in user.
  public let scope: UserDataScope
  /// The screens' drafts: `flush()` when the scene goes to the background.
  public let draftService: DraftServiceImpl

  /// The stores in `app`'s folders (its bundle identifier: a Mac app outside the sandbox shares
  /// `~/Library/Caches` with every other app, and `URLCache` keeps its files in
  /// `Caches/<bundle identifier>`: the store has a folder of its own in it), following
  /// `sessionState`.
  public init(app: String, sessionState: Relay<SessionState>) {
    let files = FileManager.default
    let caches =
      files.urls(for: .cachesDirectory, in: .userDomainMask).first ?? files.temporaryDirectory
    let support =
      files.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
      ?? files.temporaryDirectory
    cache = UserLocalStore(
      root: caches.appendingPathComponent(app, isDirectory: true)
        .appendingPathComponent("Stored", isDirectory: true), isDurable: false)
    drafts = UserLocalStore(
      root: support.appendingPathComponent(app, isDirectory: true)
        .appendingPathComponent("Drafts", isDirectory: true))
    scope = UserDataScope(caches: [cache], drafts: [drafts], sessionState: sessionState)
    draftService = DraftServiceImpl(store: drafts)
  }
}
