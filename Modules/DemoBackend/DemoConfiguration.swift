/// How the demo backend behaves: latency, token lifetime, and switches for failures.
public struct DemoConfiguration: Sendable {
  /// How long an access token lives. Short, so that a demo shows the refresh.
  public var accessTokenLifetime: Duration = .seconds(300)
  /// Whether a refresh token replaced by a refresh (rotation) is still accepted until its
  /// successor is first used: a client whose answer to the refresh was lost (a tunnel, a
  /// dropped connection) never saw the successor and tries again with the old token, maybe
  /// after a long outage. Once the successor has been used, the old token is refused (that is
  /// what reuse by a thief looks like). `false` makes a strict server: a replaced token is
  /// refused at once.
  public var acceptsReplacedRefreshTokens = true
  /// How often an open event stream gets a heartbeat (an SSE comment line), so that a client
  /// can tell a silent connection from a dead one. At most `EventDataAPI.heartbeatInterval`
  /// (5 seconds), the interval the app's idle timeout counts on.
  public var eventHeartbeatInterval: Duration = .seconds(5)
  /// Added to every response.
  public var baseLatency: Duration = .zero
  /// Added to the responses about one project (its milestones, tags, members, permissions
  /// and tasks), by project id: a slow project and a fast one make the project-change race
  /// visible.
  public var projectLatency: [Int: Duration] = [:]
  /// Added to file uploads.
  public var uploadLatency: Duration = .zero
  /// Makes every upload fail with `503 upload_failed`.
  public var failsUploads = false
  /// Makes every API route except sign-in fail with `503 unavailable`.
  public var failsRequests = false

  /// No latency, long-lived tokens: for tests.
  public static let instant = DemoConfiguration()

  /// What the demo app and the demo server use: tokens that expire after 30 seconds, a slow
  /// project ("Mobile App", 1.5 s) and a fast one ("Backend", 0.2 s), uploads that take a
  /// moment.
  public static let demo: DemoConfiguration = {
    var configuration = DemoConfiguration()
    configuration.accessTokenLifetime = .seconds(30)
    configuration.baseLatency = .milliseconds(80)
    configuration.projectLatency = [
      1: .milliseconds(1500), 2: .milliseconds(200), 3: .milliseconds(600),
    ]
    configuration.uploadLatency = .milliseconds(800)
    return configuration
  }()

  /// Creates the instant configuration.
  public init() {}
}
