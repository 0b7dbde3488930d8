import ProfileFeature
import Testing
import TrellisCoreTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("ProfileViewReactor", .timeLimit(.minutes(1)))
struct ProfileViewReactorTests {
  private let saved = ProfileViewReactor.SavedProfile(
    username: "alice", email: "alice@trellis.example", displayName: "Alice Kim",
    title: "iOS Engineer",
    bio: "")

  /// A tester whose user service does not publish, after the load: outputs come in a fixed order.
  private func loadedTester(_ users: FakeUserService) async throws -> ReactorTester<
    ProfileViewReactor
  > {
    users.publishesChanges = false
    let tester = ReactorTester(
      ProfileViewReactor(serviceProvider: TestServices(userService: users)))
    try await tester.expect(ProfileViewReactor.State())  // the relay's current value: nil
    tester.send(.load)
    try await tester.expect {
      $0.user = saved
      $0.displayName = "Alice Kim"
      $0.title = "iOS Engineer"
    }
    return tester
  }

  /// Offline, a profile already shown (the session's user, or the one the device kept) stays
  /// with no alert; with nothing to show, the failure is said.
  @Test func offlineAShownProfileStaysWithoutAnAlert() async throws {
    let users = FakeUserService()
    users.publishesChanges = false
    users.currentUser.send(.alice)
    users.fail(with: ServiceError(.offline, "The server cannot be reached."))
    let tester = ReactorTester(
      ProfileViewReactor(serviceProvider: TestServices(userService: users)))
    try await tester.expect {  // the relay's current value: the session's user
      $0.user = saved
      $0.displayName = "Alice Kim"
      $0.title = "iOS Engineer"
    }
    tester.send(.load)
    await tester.reactor.waitUntilIdle()
    try await tester.finish()  // no alert

    let empty = FakeUserService()
    empty.fail(with: ServiceError(.offline, "The server cannot be reached."))
    let second = ReactorTester(
      ProfileViewReactor(serviceProvider: TestServices(userService: empty)))
    try await second.expect(ProfileViewReactor.State())  // nothing to show
    second.send(.load)
    try await second.expectEvents(
      .alert(title: "Could not load your profile", message: "The server cannot be reached."))
    try await second.finish()
  }

  @Test func editsAndSavesTheProfile() async throws {
    let tester = try await loadedTester(FakeUserService())
    tester.send(.setBio("Hello"))
    try await tester.expect { $0.bio = "Hello" }
    #expect(tester.reactor.currentState.hasChanges)
    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    try await tester.expect { $0.user?.bio = "Hello" }
    try await tester.expectEvents(.toast("Profile saved"))
    try await tester.expect { $0.isSaving = false }
    try await tester.finish()
    #expect(!tester.reactor.currentState.hasChanges)
  }

  @Test func aRefusedSaveShowsAnAlert() async throws {
    let users = FakeUserService()
    let tester = try await loadedTester(users)
    tester.send(.setDisplayName(""))
    try await tester.expect { $0.displayName = "" }
    users.fail(with: ServiceError(.validation, "Display name is required."))
    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    try await tester.expectEvents(
      .alert(title: "Could not save the profile", message: "Display name is required."))
    try await tester.expect { $0.isSaving = false }
    try await tester.finish()
  }

  /// Fields over their limits are named before any request; a server's refusal names each
  /// field it lists ("Some fields are too long." alone said none).
  @Test func aSaveOverALimitNamesEachField() async throws {
    let users = FakeUserService()
    let tester = try await loadedTester(users)
    let name = String(repeating: "n", count: ProfileViewReactor.displayNameLimit.maximumLength + 2)
    let bio = String(repeating: "b", count: ProfileViewReactor.bioLimit.maximumLength + 1)
    tester.send(.setDisplayName(name))
    try await tester.expect { $0.displayName = name }
    tester.send(.setBio(bio))
    try await tester.expect { $0.bio = bio }
    tester.send(.save)
    let nameProblem = "Display name is 42 characters long; the most is 40."
    let bioProblem = "Bio is 281 characters long; the most is 280."
    try await tester.expect { $0.fieldProblems = ["displayName": nameProblem, "bio": bioProblem] }
    try await tester.expectEvents(
      .alert(title: "Could not save the profile", message: nameProblem + " " + bioProblem))

    tester.send(.setDisplayName("Alice"))
    try await tester.expect {
      $0.displayName = "Alice"
      $0.fieldProblems = ["bio": bioProblem]
    }
    tester.send(.setBio("Short"))
    try await tester.expect {
      $0.bio = "Short"
      $0.fieldProblems = [:]
    }
    users.fail(
      with: ServiceError(
        .validation, "Some fields are too long.", fields: ["title": "at most 60 characters"]))
    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    try await tester.expect { $0.fieldProblems = ["title": "at most 60 characters"] }
    try await tester.expectEvents(
      .alert(
        title: "Could not save the profile",
        message: "Some fields are too long. Title: at most 60 characters."))
    try await tester.expect { $0.isSaving = false }
    try await tester.finish()
  }

  @Test func offlineASaveKeepsTheEditsAndSucceedsWhenTriedAgain() async throws {
    let users = FakeUserService()
    let tester = try await loadedTester(users)
    tester.send(.setBio("Written offline"))
    try await tester.expect { $0.bio = "Written offline" }
    users.fail(with: ServiceError(.offline, "The server cannot be reached."))
    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    try await tester.expectEvents(
      .alert(
        title: "You are offline",
        message:
          "Your profile was not saved. Everything you entered is kept: save again when the connection is back."
      ))
    try await tester.expect { $0.isSaving = false }
    #expect(tester.reactor.currentState.bio == "Written offline")
    #expect(tester.reactor.currentState.hasChanges)
    users.recover()
    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    try await tester.expect { $0.user?.bio = "Written offline" }
    try await tester.expectEvents(.toast("Profile saved"))
    try await tester.expect { $0.isSaving = false }
    try await tester.finish()
  }

  @Test func followsChangesPublishedByTheUserService() async throws {
    let users = FakeUserService()
    let tester = try await loadedTester(users)
    users.publishesChanges = true
    _ = try await users.updateProfile(displayName: nil, title: "Staff Engineer", bio: nil)
    try await tester.expect {
      $0.user?.title = "Staff Engineer"
      $0.title = "Staff Engineer"  // no unsaved edits: the fields follow
    }
    try await tester.finish()
  }
}
