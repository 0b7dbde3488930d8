import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisRepository
import TrellisTestSupport

@testable import TrellisService

/// What the device keeps follows what the session does: a user's data is theirs alone, erased
/// when they sign out or the server ends the session, and never because a launch could not read
/// the session file this time.
@Suite("UserDataScope: the device's data follows the session")
struct UserDataScopeTests {
  private let root = FileManager.default.temporaryDirectory
    .appendingPathComponent("trellis-scope-\(UUID().uuidString)", isDirectory: true)

  private func users() throws -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
  }

  private static let bob = User(
    id: 2, username: "bob", displayName: "Bob Lee", email: "bob@trellis.example", title: "",
    bio: "")

  @Test func aSignInKeepsTheUsersDataAndASignOutOrAnEndedSessionErasesIt() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = UserLocalStore(root: root)
    let session = Relay(SessionState.signedOut)
    let scope = UserDataScope(caches: [store], sessionState: session)
    defer { withExtendedLifetime(scope) {} }

    session.send(.signedIn(.alice))
    store.write("projects", Data("[]".utf8))
    #expect(try users() == ["user-1"])
    session.send(.signedOut)  // she signed out
    #expect(try users().isEmpty)

    session.send(.signedIn(.alice))
    store.write("projects", Data("[]".utf8))
    session.send(.expired(reason: "revoked"))  // the server ended her session
    #expect(try users().isEmpty)

    session.send(.signedIn(.alice))
    store.write("projects", Data("[]".utf8))
    session.send(.signedIn(Self.bob))  // another user's session: hers goes
    store.write("projects", Data("[]".utf8))
    #expect(try users() == ["user-2"])
  }

  /// A launch starts signed out, then restores the session; if the session file could not be
  /// read this time (the file is kept), it stays signed out: the user's data is kept too, for
  /// the next launch that reads the session.
  @Test func aLaunchThatStartsSignedOutErasesNothing() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let earlier = UserLocalStore(root: root)
    earlier.setUser(1)
    earlier.write("draft.compose", Data("{}".utf8))

    let store = UserLocalStore(root: root)
    let session = Relay(SessionState.signedOut)
    let scope = UserDataScope(caches: [store], sessionState: session)
    defer { withExtendedLifetime(scope) {} }
    session.send(.signedOut)  // the restore: the file could not be read
    #expect(try users() == ["user-1"])
    session.send(.signedIn(.alice))  // the next restore reads it
    #expect(store.read("draft.compose") != nil)
  }

  /// What the user typed outlives a session the server ended: the drafts stay on disk (a draft
  /// being written as it ended lands there too), the same user signing in again finds them,
  /// and the cached answers go as before. Another user signing in erases them; so does a
  /// sign-out the user chose.
  @Test func draftsOutliveASessionTheServerEndedForTheSameUserOnly() async throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let cacheRoot = root.appendingPathComponent("cache", isDirectory: true)
    let draftsRoot = root.appendingPathComponent("drafts", isDirectory: true)
    let cache = UserLocalStore(root: cacheRoot)
    let drafts = UserLocalStore(root: draftsRoot)
    let session = Relay(SessionState.signedOut)
    let scope = UserDataScope(caches: [cache], drafts: [drafts], sessionState: session)
    defer { withExtendedLifetime(scope) {} }
    let draftService = DraftServiceImpl(store: drafts, delay: .seconds(3600))
    func folders(_ root: URL) -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
    }

    session.send(.signedIn(.alice))
    cache.write("projects", Data("[]".utf8))
    draftService.keep(["title": "Written before"], for: "draft.compose")
    draftService.flush()
    draftService.keep(["title": "Being written"], for: "draft.rename.7")
    session.send(.expired(reason: "Your session has ended. Sign in again."))
    draftService.flush()  // the pending draft, typed in her session, is hers
    #expect(folders(cacheRoot).isEmpty)
    #expect(folders(draftsRoot) == ["user-1"])
    #expect(drafts.read("draft.compose") == nil)  // nobody is served meanwhile
    #expect(draftService.draft([String: String].self, for: "draft.compose") == nil)

    session.send(.signedIn(.alice))  // she signs in again
    #expect(
      draftService.draft([String: String].self, for: "draft.compose")?["title"] == "Written before")
    #expect(
      draftService.draft([String: String].self, for: "draft.rename.7")?["title"] == "Being written")

    session.send(.expired(reason: "revoked"))
    session.send(.signedIn(Self.bob))  // another user: hers are gone
    #expect(folders(draftsRoot).isEmpty)
    #expect(draftService.draft([String: String].self, for: "draft.compose") == nil)

    draftService.keep(["title": "Bob's"], for: "draft.compose")
    draftService.flush()
    session.send(.signedOut)  // he chose to sign out: erased
    #expect(folders(draftsRoot).isEmpty)
    session.send(.signedIn(Self.bob))
    #expect(draftService.draft([String: String].self, for: "draft.compose") == nil)

    // The server ends Bob's session as he chooses to sign out: what was set aside for his
    // return goes too.
    draftService.keep(["title": "Bob's again"], for: "draft.compose")
    draftService.flush()
    session.send(.expired(reason: "Your session has ended. Sign in again."))
    #expect(folders(draftsRoot) == ["user-2"])
    session.send(.signedOut)
    #expect(folders(draftsRoot).isEmpty)
  }

  /// A scope with no stores over a session that starts signed out, counting its `onUserLeft`
  /// calls; `body` gets the session and the count so far.
  private func withCountedUserLeft(
    _ body: (_ session: Relay<SessionState>, _ count: () -> Int) -> Void
  ) {
    let session = Relay(SessionState.signedOut)
    let left = Mutex(0)
    let scope = UserDataScope(
      caches: [], sessionState: session, onUserLeft: { left.withLock { $0 += 1 } })
    withExtendedLifetime(scope) { body(session, { left.withLock { $0 } }) }
  }

  /// What else the device keeps of a session (the app's log) is erased when its user leaves: a
  /// sign-out (after a session the server ended too), or another user's sign-in (after a
  /// session the server ended too); not when the same user comes back in the run.
  @Test func theUserLeftHookRunsWhenTheUserLeavesOnly() {
    withCountedUserLeft { session, count in
      session.send(.signedIn(.alice))  // a restored session: hers
      #expect(count() == 0)
      session.send(.signedOut)
      #expect(count() == 1)
      session.send(.signedIn(.alice))  // after a sign-out in this run: nothing of anyone's left
      session.send(.expired(reason: "revoked"))
      session.send(.signedIn(.alice))  // she comes back: not a leaving
      #expect(count() == 1)
      session.send(.expired(reason: "revoked"))
      session.send(.signedOut)
      #expect(count() == 2)
      session.send(.signedIn(.alice))
      session.send(.expired(reason: "revoked"))
      session.send(.signedIn(Self.bob))  // another user after hers ended
      #expect(count() == 3)
      session.send(.signedIn(.alice))  // and another, with no sign-out between
      #expect(count() == 4)
    }
  }

  /// After a launch that started signed out, whose the log is is not known (the last user's
  /// session may have ended in a run before): the first sign-in empties it.
  @Test func theFirstSignInAfterALaunchSignedOutRunsTheHook() {
    withCountedUserLeft { session, count in
      session.send(.signedOut)  // the launch found no session
      #expect(count() == 0)
      session.send(.signedIn(Self.bob))
      #expect(count() == 1)
    }
  }
}
