import Foundation
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
    let scope = UserDataScope(stores: [store], sessionState: session)
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
    let scope = UserDataScope(stores: [store], sessionState: session)
    defer { withExtendedLifetime(scope) {} }
    session.send(.signedOut)  // the restore: the file could not be read
    #expect(try users() == ["user-1"])
    session.send(.signedIn(.alice))  // the next restore reads it
    #expect(store.read("draft.compose") != nil)
  }
}
