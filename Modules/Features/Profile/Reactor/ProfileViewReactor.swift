import TrellisCore
import TrellisReactor
import TrellisService

/// The signed-in user's profile: view and edit the name, title and bio.
@MainActor
public final class ProfileViewReactor: ReactorProtocol {
  /// What the user does.
  public enum Action: Sendable, Equatable {
    /// The screen appeared: load the user.
    case load
    /// Typed the display name.
    case setDisplayName(String)
    /// Typed the title.
    case setTitle(String)
    /// Typed the bio.
    case setBio(String)
    /// Tapped "Save".
    case save
  }

  /// State changes.
  public enum Mutation: Sendable, Equatable {
    /// The user arrived or changed (merged from the user service).
    case setUser(User?)
    /// The display name field changed.
    case setDisplayName(String)
    /// The title field changed.
    case setTitle(String)
    /// The bio field changed.
    case setBio(String)
    /// Saving started or ended.
    case setSaving(Bool)
    /// What is wrong with each field a save was refused for (by the server's field names).
    case setFieldProblems([String: String])
  }

  /// One-shot outputs: alerts and toasts, which the screen shows by itself.
  public typealias Event = ScreenEvent

  /// The profile as saved on the server.
  public struct SavedProfile: Sendable, Equatable {
    /// The sign-in name.
    public var username: String
    /// The e-mail address.
    public var email: String
    /// The display name.
    public var displayName: String
    /// The title.
    public var title: String
    /// The bio.
    public var bio: String

    /// Creates a saved profile.
    public init(username: String, email: String, displayName: String, title: String, bio: String) {
      self.username = username
      self.email = email
      self.displayName = displayName
      self.title = title
      self.bio = bio
    }
  }

  /// What the profile shows.
  public struct State: Sendable, Equatable {
    /// The profile as saved, once loaded.
    public var user: SavedProfile?
    /// The display name field.
    public var displayName = ""
    /// The title field.
    public var title = ""
    /// The bio field.
    public var bio = ""
    /// Whether a save is in flight.
    public var isSaving = false
    /// What is wrong with each field the last save was refused for, by field name
    /// (`displayName`, `title`, `bio`); a field's entry goes when it is edited.
    public var fieldProblems: [String: String] = [:]

    /// Whether the fields differ from the saved user.
    public var hasChanges: Bool {
      guard let user else { return false }
      return user.displayName != displayName || user.title != title || user.bio != bio
    }

    /// The state before anything happened.
    public init() {}
  }

  /// Nothing loaded.
  public let initialState = State()
  /// The runtime.
  public let runtime = ReactorRuntime<ProfileViewReactor>()
  private let services: any ProfileViewServiceProvider

  /// Creates the reactor.
  public init(serviceProvider: any ProfileViewServiceProvider) {
    services = serviceProvider
  }

  /// The user service's changes come in as mutations.
  public func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation> {
    mutation.merge(services.userService.currentUser.values) { .setUser($0) }
  }

  /// Loads, edits, or saves.
  public func mutate(action: Action) -> Effect {
    let userService = services.userService
    switch action {
    case .load:
      return .task { .setUser(try await userService.loadCurrentUser(forceRefresh: true)) }
        .catch { [weak self] error in
          // Offline with the profile shown (as the session or the device kept it): the
          // connection banner says so; an alert would only get in the way.
          if ErrorMessage.isOffline(error), self?.currentState.user != nil { return .none }
          return .event(
            .alert(
              title: "Could not load your profile", message: ErrorMessage.text(for: error)))
        }
    case .setDisplayName(let name): return .just(.setDisplayName(name))
    case .setTitle(let title): return .just(.setTitle(title))
    case .setBio(let bio): return .just(.setBio(bio))
    case .save:
      let state = currentState
      guard state.hasChanges, !state.isSaving else { return .none }
      let tooLong = Self.limits.compactMap { field, limit in
        limit.problem(with: state[keyPath: field.text]).map { (field.name, $0) }
      }
      guard tooLong.isEmpty else {
        return .concat(
          .just(.setFieldProblems(Dictionary(tooLong) { first, _ in first })),
          .event(
            .alert(
              title: "Could not save the profile",
              message: tooLong.map(\.1).joined(separator: " "))))
      }
      return .concat(
        .just(.setSaving(true)),
        .run { emit in
          let user = try await userService.updateProfile(
            displayName: state.displayName, title: state.title, bio: state.bio)
          emit(.setUser(user))
          emit.event(.toast("Profile saved"))
        },
        .just(.setSaving(false))
      )
      .catch { error in
        // The fields a server's refusal names are marked (a state change only if there are).
        let problems = (error as? ServiceError)?.fields ?? [:]
        return .concat(
          problems.isEmpty ? .none : .just(.setFieldProblems(problems)),
          .event(Self.saveFailure(error)), .just(.setSaving(false)))
      }
    }
  }

  /// The longest display name (the view's field and the save both use it).
  public static let displayNameLimit = FieldLimit("Display name", maximumLength: 40)
  /// The longest title.
  public static let titleLimit = FieldLimit("Title", maximumLength: 60)
  /// The longest bio.
  public static let bioLimit = FieldLimit("Bio", maximumLength: 280)

  /// Each field's limit, by the server's name for the field, in the form's order.
  private static let limits: [(field: (name: String, text: KeyPath<State, String>), FieldLimit)] =
    [
      (("displayName", \.displayName), displayNameLimit), (("title", \.title), titleLimit),
      (("bio", \.bio), bioLimit),
    ]

  /// The alert for a failed save: offline, it says so and that the edits are kept.
  private static func saveFailure(_ error: any Error) -> Event {
    guard ErrorMessage.isOffline(error) else {
      return .alert(
        title: "Could not save the profile",
        message: ErrorMessage.text(
          for: error, labels: ["displayName": "Display name", "title": "Title", "bio": "Bio"]))
    }
    let alert = ErrorMessage.offlineAlert("Your profile was not saved.")
    return .alert(title: alert.title, message: alert.message)
  }

  /// Applies a mutation. A new user resets the fields only when they hold no unsaved edits.
  public func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setUser(let user):
      let hadChanges = state.hasChanges
      state.user = user.map {
        SavedProfile(
          username: $0.username, email: $0.email, displayName: $0.displayName, title: $0.title,
          bio: $0.bio)
      }
      if let user, !hadChanges {
        state.displayName = user.displayName
        state.title = user.title
        state.bio = user.bio
      }
    case .setDisplayName(let name):
      state.displayName = name
      state.fieldProblems["displayName"] = nil
    case .setTitle(let title):
      state.title = title
      state.fieldProblems["title"] = nil
    case .setBio(let bio):
      state.bio = bio
      state.fieldProblems["bio"] = nil
    case .setSaving(let isSaving): state.isSaving = isSaving
    case .setFieldProblems(let problems): state.fieldProblems = problems
    }
    return state
  }
}
