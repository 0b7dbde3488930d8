import Foundation
import TrellisCore
import TrellisLoopbackServer

extension DemoBackend {
  func registerAuthRoutes() {
    router.post("/auth/login") { [self] request in
      let settings = currentConfiguration
      return Self.answer { () throws(DemoFailure) in
        try login(request, lifetime: settings.accessTokenLifetime)
      }.delayed(by: settings.baseLatency)
    }

    router.post("/auth/refresh") { [self] request in
      let settings = currentConfiguration
      return Self.answer { () throws(DemoFailure) in
        try refresh(
          request, lifetime: settings.accessTokenLifetime,
          acceptingReplaced: settings.acceptsReplacedRefreshTokens)
      }.delayed(by: settings.baseLatency)
    }

    // Ends a session named by its refresh token (which outlives an expired access token) or,
    // for older clients, by the bearer token. Unknown tokens end nothing and still answer 204:
    // signing out twice is not an error, and the answer says nothing about which tokens exist.
    router.post("/auth/logout") { [self] request in
      let refreshToken = (try? request.decodeBody(Wire.RefreshRequest.self))?.refreshToken
      let bearer = request.bearerToken
      updateSessions { state in
        let session =
          refreshToken.flatMap { state.refreshTokens[$0]?.sessionID }
          ?? bearer.flatMap { state.accessTokens[$0]?.sessionID }
        if let session { state.endSession(session) }
      }
      return .status(204)
    }
  }

  private func login(_ request: ServerRequest, lifetime: Duration)
    throws(DemoFailure) -> ServerResponse
  {
    let credentials = try Self.decode(Wire.Credentials.self, from: request)
    var fields: [String: String] = [:]
    if (credentials.username ?? "").isEmpty { fields["username"] = "required" }
    if (credentials.password ?? "").isEmpty { fields["password"] = "required" }
    guard fields.isEmpty else {
      throw .validation("Enter a username and a password.", fields: fields)
    }
    let date = now()
    let tokens = updateSessions { state -> Wire.Tokens? in
      guard
        let account = state.accounts.first(where: {
          $0.user.username == credentials.username?.lowercased()
            && $0.password == credentials.password
        })
      else { return nil }
      let issued = state.issueTokens(
        for: account.user.id, sessionID: nil, lifetime: lifetime, now: date)
      return Wire.Tokens(
        accessToken: issued.access, refreshToken: issued.refresh,
        expiresIn: Int(lifetime.components.seconds), user: account.user)
    }
    guard let tokens else {
      throw DemoFailure(
        status: 401,
        body: Wire.Failure(code: "invalid_credentials", message: "Wrong username or password."))
    }
    announce(tokens)
    return .json(tokens)
  }

  /// Exchanges a refresh token for new tokens; the old refresh token stops working
  /// (rotation), except that (with `acceptingReplaced`) it is still accepted until the new one
  /// is first used, for a client that never received the answer (the connection dropped on the
  /// way back).
  private func refresh(_ request: ServerRequest, lifetime: Duration, acceptingReplaced: Bool)
    throws(DemoFailure) -> ServerResponse
  {
    let body = try Self.decode(Wire.RefreshRequest.self, from: request)
    guard let refreshToken = body.refreshToken, !refreshToken.isEmpty else {
      throw .validation("A refresh token is required.", fields: ["refreshToken": "required"])
    }
    let date = now()
    let tokens = updateSessions { state -> Wire.Tokens? in
      guard
        let issued = state.exchange(
          refreshToken, lifetime: lifetime, acceptingReplaced: acceptingReplaced, now: date),
        let user = state.user(issued.userID)
      else { return nil }
      return Wire.Tokens(
        accessToken: issued.access, refreshToken: issued.refresh,
        expiresIn: Int(lifetime.components.seconds), user: user)
    }
    guard let tokens else {
      throw DemoFailure(
        status: 401,
        body: Wire.Failure(
          code: "invalid_refresh_token", message: "The session has ended. Sign in again."))
    }
    announce(tokens)
    return .json(tokens)
  }
}
