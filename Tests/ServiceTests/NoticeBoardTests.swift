import Foundation
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisService
import TrellisTestSupport

@Suite("NoticeBoard: what the user must be told, kept until seen, theirs only")
struct NoticeBoardTests {
  private static let bob = User(
    id: 2, username: "bob", displayName: "Bob Lee", email: "bob@trellis.example", title: "",
    bio: "")

  @Test func noticesWaitInOrderUntilSeenAndTheNewestAreKept() {
    let board = NoticeBoard(limit: 3)
    let notices = (1...5).map { Notice(title: "T", message: "\($0)") }
    for notice in notices { board.post(notice) }
    // Bounded: the two oldest went.
    #expect(board.unseen.value.map(\.message) == ["3", "4", "5"])
    board.markSeen(notices[3].id)
    #expect(board.unseen.value.map(\.message) == ["3", "5"])
    board.markSeen(notices[0].id)  // gone already: nothing
    #expect(board.unseen.value.map(\.message) == ["3", "5"])
    // Two alike are still two.
    board.post(Notice(title: "T", message: "5"))
    #expect(board.unseen.value.map(\.message) == ["3", "5", "5"])
  }

  @Test func aSignOutOrAnotherUserEmptiesItAnEndedSessionKeepsIt() {
    let session = Relay(SessionState.signedIn(.alice))
    let board = NoticeBoard(sessionState: session)
    defer { withExtendedLifetime(board) {} }
    board.post(Notice(title: "T", message: "Alice's"))
    // The server ended Alice's session: hers wait for her next sign-in.
    session.send(.expired(reason: "Your session ended."))
    session.send(.signedIn(.alice))
    #expect(board.unseen.value.map(\.message) == ["Alice's"])
    // Bob signs in on the same device: none of hers reaches him.
    session.send(.expired(reason: "Your session ended."))
    session.send(.signedIn(Self.bob))
    #expect(board.unseen.value.isEmpty)
    board.post(Notice(title: "T", message: "Bob's"))
    session.send(.signedOut)
    #expect(board.unseen.value.isEmpty)
  }

  /// A notice posted for the user who just left (their work answered after the sign-out, or
  /// after another user signed in) never reaches the next user's board.
  @Test func aNoticeForTheUserWhoLeftIsDropped() {
    let session = Relay(SessionState.signedIn(.alice))
    let board = NoticeBoard(sessionState: session)
    defer { withExtendedLifetime(board) {} }
    session.send(.signedOut)
    board.post(Notice(title: "T", message: "Alice's, late"), forUser: User.alice.id)
    session.send(.signedIn(Self.bob))
    #expect(board.unseen.value.isEmpty)
    board.post(Notice(title: "T", message: "Alice's, later"), forUser: User.alice.id)
    board.post(Notice(title: "T", message: "Bob's"), forUser: Self.bob.id)
    #expect(board.unseen.value.map(\.message) == ["Bob's"])
  }
}
