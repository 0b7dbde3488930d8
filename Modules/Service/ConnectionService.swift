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
}

/// The ``ConnectionService`` over an ``EventRepo``. While a user is signed in the stream is
/// kept alive: a stream that ends by itself (the server answered `204`, a sign-in portal
/// answered HTML, an authentication error) is started again after a backoff that grows with
/// each stream in a row that brought no event, and when the network comes back (a request
/// reached the server after failures) the stream reconnects at once. It disconnects when the
/// session ends. A `session.revoked` event ends the session through the auth service, which
/// sends every screen back to sign-in.
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

  /// Creates the service and starts following the session.
  ///
  /// - Parameters:
  ///   - reachability: Whether requests reach the server (a ``ReachabilityPlugin``'s): when
  ///     it turns `true`, a stream waiting to reconnect reconnects now.
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
      },
      authService.sessionState.observe { [weak self] session in
        if session.user != nil {
          self?.connect()
        } else {
          wasOpen.withLock { $0 = false }
          self?.disconnect()
        }
      },
    ]
    if let reachability {
      let wakeUp = wakeUp
      tokens.append(
        reachability.observe { reachable in
          guard reachable else { return }
          repo.reconnectNow()
          wakeUp.wake()
        })
    }
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
      task = Task { [repo, events, authService, restartBackoff, sleep, logger, wakeUp] in
        var quietStreams = 0
        while !Task.isCancelled {
          var delivered = false
          for await event in repo.events() {
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
          do { try await wakeUp.wait(for: delay, sleep: sleep) } catch { return }
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
