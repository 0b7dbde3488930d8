import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The sessions the embedded backend keeps between launches of the app: each live refresh
/// token and access token with its user, session and expiry, so that a relaunched app whose
/// access token is still valid uses it (no `401` first), and one whose token expired refreshes
/// it ahead, as a real server would have it.
struct DemoSessionFile: Codable, Equatable {
  struct Grant: Codable, Equatable {
    var refreshToken: String
    var userID: Int
    var sessionID: Int
    var expiresAt: Date
  }

  struct AccessGrant: Codable, Equatable {
    var accessToken: String
    var userID: Int
    var sessionID: Int
    var expiresAt: Date
  }

  var nextSessionID: Int
  var grants: [Grant]
  /// `nil` in files of versions that did not keep access tokens.
  var accessGrants: [AccessGrant]?

  /// The most a sessions file may hold; a bigger one is not read (it cannot be ours).
  static let maximumSize = 1 << 20
}

extension DemoBackend {
  /// Takes the sessions saved in `file`: the unexpired grants of existing users, at most
  /// ``DemoState/maximumSessionsPerUser`` per user. A missing, oversized or undecodable file
  /// starts the backend with no sessions (the client then signs in again).
  func restoreSessions(from file: URL) {
    guard
      let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
      let size = attributes[.size] as? Int, size <= DemoSessionFile.maximumSize,
      let data = try? Data(contentsOf: file),
      let saved = try? Self.sessionCoder.decoder.decode(DemoSessionFile.self, from: data)
    else { return }
    let date = now()
    state.withLock { state in
      var perUser: [Int: Set<Int>] = [:]
      for grant in saved.grants
      where grant.expiresAt > date && state.user(grant.userID) != nil && !grant.refreshToken.isEmpty
      {
        var sessions = perUser[grant.userID, default: []]
        guard
          sessions.contains(grant.sessionID)
            || sessions.count < DemoState.maximumSessionsPerUser
        else { continue }
        sessions.insert(grant.sessionID)
        perUser[grant.userID] = sessions
        state.refreshTokens[grant.refreshToken] = DemoState.RefreshGrant(
          userID: grant.userID, sessionID: grant.sessionID, expiresAt: grant.expiresAt)
      }
      let liveSessions = Set(state.refreshTokens.values.map(\.sessionID))
      for grant in saved.accessGrants ?? []
      where grant.expiresAt > date && liveSessions.contains(grant.sessionID)
        && !grant.accessToken.isEmpty
      {
        state.accessTokens[grant.accessToken] = DemoState.AccessGrant(
          userID: grant.userID, sessionID: grant.sessionID, expiresAt: grant.expiresAt)
      }
      let highest = state.refreshTokens.values.map(\.sessionID).max() ?? 0
      state.nextSessionID = max(state.nextSessionID, saved.nextSessionID, highest + 1)
    }
  }

  /// Writes the live sessions to ``sessionsFile``, if the backend has one: atomically (a new
  /// file renamed over the old), readable by the user alone (it holds refresh tokens), in a
  /// folder only the user can open. A failure to write is not an error of the request that
  /// caused it: the sessions are then only lost at the next launch.
  func persistSessions() {
    guard let file = sessionsFile else { return }
    let snapshot = state.withLock { state in
      DemoSessionFile(
        nextSessionID: state.nextSessionID,
        grants: state.refreshTokens.map { token, grant in
          DemoSessionFile.Grant(
            refreshToken: token, userID: grant.userID, sessionID: grant.sessionID,
            expiresAt: grant.expiresAt)
        }.sorted { $0.sessionID < $1.sessionID },
        accessGrants: state.accessTokens.map { token, grant in
          DemoSessionFile.AccessGrant(
            accessToken: token, userID: grant.userID, sessionID: grant.sessionID,
            expiresAt: grant.expiresAt)
        }.sorted { $0.sessionID < $1.sessionID })
    }
    guard let data = try? Self.sessionCoder.encoder.encode(snapshot) else { return }
    persistenceLock.withLock { _ in
      let folder = file.deletingLastPathComponent().path
      if !FileManager.default.fileExists(atPath: folder) {
        try? FileManager.default.createDirectory(
          atPath: folder, withIntermediateDirectories: true,
          attributes: [.posixPermissions: 0o700])
      }
      let temporary = file.path + ".tmp-\(getpid())"
      unlink(temporary)
      let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      guard descriptor >= 0 else { return }
      let written = data.withUnsafeBytes { bytes -> Bool in
        var offset = 0
        while offset < bytes.count {
          let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
          if count < 0 {
            if errno == EINTR { continue }
            return false
          }
          offset += count
        }
        return fsync(descriptor) == 0
      }
      close(descriptor)
      if !written || rename(temporary, file.path) != 0 { unlink(temporary) }
    }
  }

  static var sessionCoder: (encoder: JSONEncoder, decoder: JSONDecoder) {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .secondsSince1970
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    return (encoder, decoder)
  }
}
