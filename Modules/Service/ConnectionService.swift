import Core
import Network
import Repository
import Synchronization

/// Owns the server's event stream: publishes the connection state (for a banner) and the
/// server's events (for reactors to merge through `transform(mutation:)`).
public protocol ConnectionService: Sendable {
  /// The connection state.
  var state: Relay<ConnectionState> { get }
  /// The server's events, as they arrive.
  var events: Broadcast<ServerEvent> { get }
}

/// The ``ConnectionService`` over an ``EventRepo``. It connects while a user is signed in and
/// disconnects when the session ends. A `session.revoked` event ends the session through the
/// auth service, which sends every screen back to sign-in.
public final class ConnectionServiceImpl: ConnectionService {
  /// See ``ConnectionService/state``.
  public let state = Relay(ConnectionState.offline)
  /// See ``ConnectionService/events``.
  public let events = Broadcast<ServerEvent>()
  private let repo: any EventRepo
  private let authService: any AuthService
  private let stream = Mutex<Task<Void, Never>?>(nil)
  private let observations = Mutex<[ObservationToken]>([])

  /// Creates the service and starts following the session.
  public init(repo: any EventRepo, authService: any AuthService) {
    self.repo = repo
    self.authService = authService
    let state = state
    let tokens = [
      repo.connectionState.observe { streamState in
        switch streamState {
        case .idle, .lost: state.send(.offline)
        case .connecting: state.send(.connecting)
        case .open: state.send(.online)
        }
      },
      authService.sessionState.observe { [weak self] session in
        if session.user != nil { self?.connect() } else { self?.disconnect() }
      },
    ]
    observations.withLock { $0 = tokens }
    if authService.sessionState.value.user != nil { connect() }
  }

  deinit {
    disconnect()
  }

  /// Connects if not connected.
  func connect() {
    stream.withLock { task in
      guard task == nil else { return }
      let repo = repo
      let events = events
      let authService = authService
      task = Task {
        for await event in repo.events() {
          switch event {
          case .taskCreated(let task): events.send(.taskCreated(TaskItem(task)))
          case .sessionRevoked:
            events.send(.sessionRevoked)
            await authService.endSession(reason: "Your session was ended on the server.")
          case .unknown: continue
          }
        }
      }
    }
  }

  /// Disconnects if connected.
  func disconnect() {
    let task = stream.withLock { task in
      defer { task = nil }
      return task
    }
    task?.cancel()
  }
}
