import TrellisCore

/// Watches every answer its requesters get and publishes whether the server is reachable:
/// `false` after a request that could not reach it (refused, timed out, dropped), `true` again
/// as soon as any answer arrives, whatever its status.
///
/// It sends nothing of its own and changes no request. The connection service listens, so
/// that when the network comes back the event stream reconnects at once instead of waiting out
/// a long backoff. Share one plugin between the requesters of one server.
public struct ReachabilityPlugin: HTTPPlugin {
  /// Whether the last request reached the server (`true` until one does not).
  public let isReachable = Relay(true)

  /// Creates the plugin.
  public init() {}

  /// `"reachability"`.
  public var name: String { "reachability" }

  /// Records whether `result` came from the server.
  public func didReceive(_ result: HTTPResult, for request: HTTPRequest, context: HTTPCallContext)
    async
  {
    let reached: Bool
    switch result {
    case .success, .failure(.unacceptableStatus), .failure(.decoding): reached = true
    // A call the transport replaced after a network change says nothing of the server: were it
    // taken for "unreachable", the change it signals would replace the calls again, and again.
    case .failure(.transport(let failure)) where failure.kind == .connectionReplaced: return
    case .failure(.transport(let failure)) where failure.isTemporary: reached = false
    default: return
    }
    if isReachable.value != reached { isReachable.send(reached) }
  }
}
