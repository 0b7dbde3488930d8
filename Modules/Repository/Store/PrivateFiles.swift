import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files only the user can read, written so that a crash leaves the old contents or the new,
/// never half: what the app keeps of the user's (the session, cached answers, drafts).
///
/// - A directory is created 0700, or tightened to it if it was wider.
/// - A file is written to a temporary file created 0600 in the same directory (never readable
///   by others, not even briefly), synced, renamed over the old one, and the directory synced.
/// - A read takes at most a given number of bytes: a bigger file is not one of ours.
public enum PrivateFiles {
  /// Why a private file could not be read or written.
  public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, with the system's reason.
    public var reason: String
    /// Whether the file is not what it should be (too large), rather than unreadable.
    public var isCorrupt: Bool

    /// The reason.
    public var description: String { reason }

    init(_ reason: String, isCorrupt: Bool = false) {
      self.reason = reason
      self.isCorrupt = isCorrupt
    }
  }

  /// Creates `directory` (and its parents) with owner-only permissions, or tightens it to 0700
  /// if it exists with wider ones.
  public static func prepareDirectory(_ directory: URL) throws(Failure) {
    do {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw Failure("cannot create \(directory.path): \(error.localizedDescription)")
    }
    var status = stat()
    guard stat(directory.path, &status) == 0 else {
      throw Failure("cannot inspect \(directory.path): \(systemError())")
    }
    if status.st_mode & 0o077 != 0, chmod(directory.path, 0o700) != 0 {
      throw Failure("cannot make \(directory.path) private (0700): \(systemError())")
    }
  }

  /// Writes `data` to `file` atomically and durably, readable by the user alone, in a private
  /// directory. `prefix` names the temporary file (`.session-`), so leftovers of a crash can be
  /// found by it. Without `durably`, the file and the directory are not synced to the disk: a
  /// reader still sees the old file or the new one whole, but a power cut may lose the write
  /// (or, on some file systems, leave an empty file): for what can be fetched again.
  public static func write(
    _ data: Data, to file: URL, temporaryPrefix prefix: String, durably: Bool = true
  ) throws(Failure) {
    let directory = file.deletingLastPathComponent()
    try prepareDirectory(directory)
    let temporary = directory.appendingPathComponent("\(prefix)\(UUID().uuidString).tmp")
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw Failure("cannot create \(temporary.path): \(systemError())")
    }
    let written = data.withUnsafeBytes { bytes -> Bool in
      var offset = 0
      while offset < bytes.count {
        let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if count < 0 {
          if errno == EINTR { continue }
          return false
        }
        offset += count
      }
      return true
    }
    let reason = written ? "" : systemError()
    let synced = written && (!durably || fsync(descriptor) == 0)
    close(descriptor)
    guard written, synced else {
      unlink(temporary.path)
      throw Failure("cannot write \(temporary.path): \(written ? "sync failed" : reason)")
    }
    guard rename(temporary.path, file.path) == 0 else {
      let reason = systemError()
      unlink(temporary.path)
      throw Failure("cannot replace \(file.path): \(reason)")
    }
    if durably { syncDirectory(directory) }
  }

  /// The contents of `file`, `nil` when there is none.
  ///
  /// - Throws: ``Failure`` when it cannot be read (permissions, I/O), or, marked
  ///   ``Failure/isCorrupt``, when it is larger than `limit` bytes.
  public static func read(_ file: URL, limit: Int) throws(Failure) -> Data? {
    let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { return nil }
      throw Failure("cannot read \(file.path): \(systemError())")
    }
    defer { close(descriptor) }
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure("cannot read \(file.path): \(systemError())")
      }
      if count == 0 { return data }
      data.append(contentsOf: chunk[0..<count])
      guard data.count <= limit else {
        throw Failure("\(file.path) is larger than \(limit) bytes", isCorrupt: true)
      }
    }
  }

  /// Removes `file` (no error if there is none).
  public static func remove(_ file: URL) throws(Failure) {
    guard unlink(file.path) == 0 || errno == ENOENT else {
      throw Failure("cannot remove \(file.path): \(systemError())")
    }
    syncDirectory(file.deletingLastPathComponent())
  }

  /// Makes a directory's entries (a rename, a removal) durable.
  public static func syncDirectory(_ directory: URL) {
    let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = fsync(descriptor)
    close(descriptor)
  }

  /// The last system call's error, in words.
  static func systemError() -> String {
    String(cString: strerror(errno))
  }
}

// The C library's `write` and `read`, under names `PrivateFiles`' own methods do not hide.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, buffer, count)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int
{
  read(descriptor, buffer, count)
}
