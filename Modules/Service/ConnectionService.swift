import TrellisCore
import TrellisNetwork
import TrellisRepository

/// Owns the server's event stream: publishes the connection state (for a banner) and the
/// server's events (for reactors to merge through `transform(mutation:)`).
public protocol ConnectionService: Sendable {
  /// The connection state.
  var state: Relay<ConnectionState> { get }
  /// The server's events, as they arrive.
  var events: Broadcast<ServerEvent> { get }

  /// Replaces the stream's connection with a new one now (or ends a wait before
  /// reconnecting): the network may have changed, and a connection opened before may be dead
  /// without knowing it. The app calls it when it comes back to the foreground (SwiftUI:
  /// `scenePhase == .active`); the service calls it itself when requests reach the server
  /// again after failures, or stop reaching it.
  func reconnectNow()
}

/// The ``ConnectionService`` over an ``EventRepo``. While a user is signed in the stream is
/// kept alive: a stream that ends by itself (the server answered `204`, a sign-in portal
/// answered HTML, an authentication error) is started again after a backoff that grows with
/// each stream in a row that brought no event, resuming after the last event it delivered
/// (so the server replays what was missed); and when the network may have changed (a request
/// reached the server after failures, or failed after successes; ``reconnectNow()``) the
/// stream's connection is replaced at once. It disconnects quietly when the session ends, and
/// forgets where the stream stood; another user's sign-in (with no sign-out between) is a
/// sign-out and a sign-in: the stream opened with the previous user's token is closed and a
/// new one opened. An event is passed on only while the session its stream was opened in
/// lasts (``SessionGeneration``). A `session.revoked` event ends that session through the auth
/// service, which sends every screen back to sign-in.
public final class ConnectionServiceImpl: ConnectionService {
  /// See ``ConnectionService/state``.
  public let state = Relay(ConnectionState.offline)
  /// See ``ConnectionService/events``.
  public let events = Broadcast<ServerEvent>()
  private let repo: any EventRepo
  private let authService: any AuthService
  private let restartBackoff: Backoff
  private let sleep: @Sendable (Duration) async throws -> Void
  private let logger: Logger
  private let wakeUp = WakeUp()
  private let stream = Lock<Task<Void, Never>?>(nil)
  private let observations = Lock<[ObservationToken]>([])
  /// The session the stream serves: a change ends it, and another user's begins a new one.
  private let session = Lock<SessionGeneration?>(nil)

  /// Creates the service and starts following the session.
  ///
  /// - Parameters:
  ///   - reachability: Whether requests reach the server (a ``ReachabilityPlugin``'s): when it
  ///     changes, the network may have, and the stream's connection is replaced now.
  ///   - restartBackoff: The wait before starting again a stream that ended by itself.
  ///   - sleep: How waits are made; replaceable in tests.
  public init(
    repo: any EventRepo, authService: any AuthService, reachability: Relay<Bool>? = nil,
    restartBackoff: Backoff = Backoff(base: .seconds(2), maximum: .seconds(60)),
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
    logger: Logger = Logger(category: "Connection")
  ) {
    self.repo = repo
    self.authService = authService
    self.restartBackoff = restartBackoff
    self.sleep = sleep
    self.logger = logger
    let state = state
    let wasOpen = Lock(false)
    var tokens = [
      repo.connectionState.observe { streamState in
        let next: ConnectionState =
          switch streamState {
          case .idle, .lost: .offline
          case .connecting(let attempt):
            wasOpen.withLock { $0 } || attempt > 1 ? .reconnecting : .connecting
          case .open: .online
          }
        if case .open = streamState { wasOpen.withLock { $0 = true } }
        state.send(next)
      }
    ]
    if let reachability {
      tokens.append(
        reachability.observe { [weak self] _ in
          self?.reconnectNow()
        })
    }
    observations.withLock { $0 = tokens }
    // The session's end (or another user's sign-in) closes its stream, quietly, and forgets
    // where it stood: the next user's stream starts fresh.
    let generation = SessionGeneration(sessionState: authService.sessionState) {
      [weak self] user in
      wasOpen.withLock { $0 = false }
      self?.disconnect()
      repo.forgetLastEventID()
      if user != nil { self?.connect() }
    }
    session.withLock { $0 = generation }
    if authService.sessionState.value.user != nil { connect() }
  }

  /// See ``ConnectionService/reconnectNow()``.
  public func reconnectNow() {
    repo.reconnectNow()
    wakeUp.wake()
  }

  deinit {
    disconnect()
  }

  /// Connects if not connected.
  func connect() {
    guard let session = session.withLock({ $0 }) else { return }
    stream.withLock { task in
      guard task == nil else { return }
      let mark = session.mark
      task = Task { [repo, events, authService, restartBackoff, sleep, logger, wakeUp] in
        var quietStreams = 0
        while !Task.isCancelled {
          // A wake from now on (the network changed) ends the wait before the next start.
          let wakes = wakeUp.wakeCount
          var delivered = false
          for await event in repo.events() {
            // An event read as the session ended is the ended session's: dropped.
            guard !Task.isCancelled, session.isCurrent(mark) else { return }
            delivered = true
            switch event {
            case .taskCreated(let task): events.send(.taskCreated(TaskItem(task)))
            case .taskUpdated(let task): events.send(.taskUpdated(TaskItem(task)))
            case .taskDeleted(let task): events.send(.taskDeleted(TaskItem(task)))
            case .sessionRevoked:
              events.send(.sessionRevoked)
              await authService.endSession(reason: "Your session was ended on the server.")
            case .unknown: continue
            }
          }
          // The stream ended by itself: start it again while signed in.
          guard !Task.isCancelled, authService.sessionState.value.user != nil else { return }
          quietStreams = delivered ? 1 : quietStreams + 1
          let delay = restartBackoff.delay(afterFailures: quietStreams)
          logger.notice("The event stream ended; starting it again in \(delay.readable)")
          do {
            try await wakeUp.wait(for: delay, sleep: sleep, ifNotWokenSince: wakes)
          } catch { return }
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
