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
///
/// It is also what the embedded backends of several copies of the app sharing one data folder
/// share: each reads it again when another has changed it, and changes it under a lock
/// (`<file>.lock`), so that together they behave as one server. A copy then never presents
/// tokens its own backend does not know: the tokens the other copy's refresh issued, which it
/// took from `session.json`, are in this file too.
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

  /// A refresh token replaced by `successor`, still accepted until the successor is used.
  struct ReplacedGrant: Codable, Equatable {
    var refreshToken: String
    var userID: Int
    var sessionID: Int
    var successor: String
  }

  var nextSessionID: Int
  var grants: [Grant]
  /// `nil` in files of versions that did not keep access tokens.
  var accessGrants: [AccessGrant]?
  /// `nil` in files of versions that did not keep replaced refresh tokens.
  var replacedGrants: [ReplacedGrant]?

  /// The most a sessions file may hold; a bigger one is not read (it cannot be ours).
  static let maximumSize = 1 << 20
}

/// What identifies one version of the sessions file: another copy of the app replaced it when
/// this changes.
struct DemoSessionFileStamp: Equatable {
  var fileNumber: UInt64
  var size: UInt64
  var modified: Date

  /// The stamp of the file at `path`, if it exists.
  init?(path: String) {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let fileNumber = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
      let size = (attributes[.size] as? NSNumber)?.uint64Value,
      let modified = attributes[.modificationDate] as? Date
    else { return nil }
    (self.fileNumber, self.size, self.modified) = (fileNumber, size, modified)
  }
}

extension DemoBackend {
  /// Takes the sessions saved in `file` in place of the ones held: the unexpired grants of
  /// existing users, at most ``DemoState/maximumSessionsPerUser`` per user. A missing,
  /// oversized or undecodable file changes nothing (at launch: no sessions, so the client signs
  /// in again).
  func restoreSessions(from file: URL) {
    let stamp = DemoSessionFileStamp(path: file.path)
    guard
      let size = stamp?.size, size <= DemoSessionFile.maximumSize,
      let data = try? Data(contentsOf: file),
      let saved = try? Self.sessionCoder.decoder.decode(DemoSessionFile.self, from: data)
    else { return }
    sessionsFileStamp.withLock { $0 = stamp }
    let date = now()
    state.withLock { state in
      state.refreshTokens = [:]
      state.accessTokens = [:]
      state.retiredRefreshTokens = [:]
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
      for grant in saved.replacedGrants ?? []
      where state.refreshTokens[grant.successor]?.sessionID == grant.sessionID
        && !grant.refreshToken.isEmpty
      {
        state.retiredRefreshTokens[grant.refreshToken] = DemoState.RetiredGrant(
          userID: grant.userID, sessionID: grant.sessionID, successor: grant.successor)
      }
      let highest = state.refreshTokens.values.map(\.sessionID).max() ?? 0
      state.nextSessionID = max(state.nextSessionID, saved.nextSessionID, highest + 1)
    }
  }

  /// Reads the sessions file again if another copy of the app changed it since this backend
  /// last read or wrote it (each write renames a new file into place: its stamp differs).
  /// Nothing to do without a sessions file.
  func reloadSessionsIfChanged() {
    sessionsUpdate.withLock { _ in reloadSessionsIfChangedLocked() }
  }

  /// ``reloadSessionsIfChanged()``, for a caller that holds ``sessionsUpdate``.
  private func reloadSessionsIfChangedLocked() {
    guard let file = sessionsFile else { return }
    let stamp = DemoSessionFileStamp(path: file.path)
    guard stamp != sessionsFileStamp.withLock({ $0 }) else { return }
    restoreSessions(from: file)
  }

  /// Applies `change` to the sessions as one step that the other copies of the app sharing the
  /// sessions file cannot interleave with: under the file's lock, after reading what they
  /// wrote, and writing the result before the lock is released. Without a sessions file, it
  /// only applies `change`.
  ///
  /// Within this process the same step excludes a reload (``sessionsUpdate``): a reload between
  /// the change and its write would bring back what the change replaced. What another copy
  /// wrote is read when the file's stamp says so; a write of this backend's that failed leaves
  /// the stamp, so what it changed stays in memory rather than being read back over.
  @discardableResult
  func updateSessions<Result: Sendable>(_ change: (inout DemoState) -> Result) -> Result {
    guard let file = sessionsFile else { return state.withLock { change(&$0) } }
    return sessionsUpdate.withLock { _ in
      let lock = DemoFileLock(path: file.path + ".lock")
      defer { lock.release() }
      reloadSessionsIfChangedLocked()
      let result = state.withLock { change(&$0) }
      persistSessions()
      return result
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
        }.sorted { $0.sessionID < $1.sessionID },
        replacedGrants: state.retiredRefreshTokens.map { token, grant in
          DemoSessionFile.ReplacedGrant(
            refreshToken: token, userID: grant.userID, sessionID: grant.sessionID,
            successor: grant.successor)
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
      if !written || rename(temporary, file.path) != 0 {
        unlink(temporary)
        return
      }
      // What this backend wrote is what it holds: no need to read it back.
      let stamp = DemoSessionFileStamp(path: file.path)
      sessionsFileStamp.withLock { $0 = stamp }
    }
  }

  /// Removes the temporary files (`<file>.tmp-<pid>`, refresh tokens in them) that a copy of
  /// the app left when it died between writing one and renaming it into place: those of a
  /// process that no longer runs, and any older than ``leftoverAge`` (a write takes
  /// milliseconds; an older one is not in progress, whatever process now has that id).
  func removeLeftoverSessionFiles(of file: URL) {
    let folder = file.deletingLastPathComponent()
    let prefix = file.lastPathComponent + ".tmp-"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
      return
    }
    let cutoff = Date().addingTimeInterval(-Self.leftoverAge)
    for name in names where name.hasPrefix(prefix) {
      let path = folder.appendingPathComponent(name).path
      let modified =
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
      let owner = Int32(name.dropFirst(prefix.count))
      let ownerIsGone = owner.map { $0 > 0 && kill($0, 0) != 0 && errno == ESRCH } ?? true
      guard ownerIsGone || (modified.map { $0 < cutoff } ?? true) else { continue }
      unlink(path)
    }
  }

  /// How old a temporary sessions file must be to be a leftover whatever its process id says.
  static let leftoverAge: TimeInterval = 60

  static var sessionCoder: (encoder: JSONEncoder, decoder: JSONDecoder) {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .secondsSince1970
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    return (encoder, decoder)
  }
}

/// An exclusive lock on a file shared by the processes that open it (`flock`), taken within two
/// seconds or not at all: a copy of the app that cannot get it in time goes on without it
/// rather than stall a request (its change may then be overwritten by the other copy's).
struct DemoFileLock {
  private let descriptor: Int32

  init(path: String) {
    var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    if descriptor >= 0 {
      let deadline = ContinuousClock.now + .seconds(2)
      while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
        guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
          close(descriptor)
          descriptor = -1
          break
        }
        usleep(2000)
      }
    }
    self.descriptor = descriptor
  }

  /// Releases the lock (closing the descriptor releases it).
  func release() {
    if descriptor >= 0 { close(descriptor) }
  }
}
