import Foundation
import TrellisRepository

/// Uploads attachments.
public protocol FileService: Sendable {
  /// Uploads the file at `url`, reporting progress where the transport can tell. Cancelling
  /// the calling task cancels the upload.
  ///
  /// - Throws: `.invalidInput` when the file cannot be read, else what the upload failed with.
  func upload(fileAt url: URL, progress: (@Sendable (Double) -> Void)?)
    async throws(ServiceError) -> Attachment
}

/// The ``FileService`` over a ``FileRepo``.
public final class FileServiceImpl: FileService {
  private let repo: any FileRepo
  /// The largest file accepted, checked before uploading.
  public let maximumSize: Int

  /// Creates the service.
  public init(repo: any FileRepo, maximumSize: Int = 5 * 1024 * 1024) {
    self.repo = repo
    self.maximumSize = maximumSize
  }

  /// See ``FileService/upload(fileAt:progress:)``.
  public func upload(fileAt url: URL, progress: (@Sendable (Double) -> Void)?)
    async throws(ServiceError) -> Attachment
  {
    let data = try Self.read(url, limit: maximumSize)
    do {
      return Attachment(
        try await repo.upload(
          fileName: url.lastPathComponent, contentType: Self.contentType(of: url), data: data,
          progress: progress))
    } catch {
      throw ServiceError(error)
    }
  }

  /// The bytes of the file at `url`, if it has at most `limit`: no more than `limit + 1` bytes
  /// are ever read, so a huge file is refused without filling memory.
  ///
  /// On Apple platforms a file the user picked (a document picker, `fileImporter`) comes as a
  /// security-scoped URL outside the app's sandbox: it can be read only between
  /// `startAccessingSecurityScopedResource()` and `stopAccessingSecurityScopedResource()`,
  /// which this does around the read (for a URL inside the sandbox the start returns `false`,
  /// and nothing needs stopping).
  static func read(_ url: URL, limit: Int) throws(ServiceError) -> Data {
    #if canImport(Darwin)
      let isScoped = url.startAccessingSecurityScopedResource()
      defer { if isScoped { url.stopAccessingSecurityScopedResource() } }
    #endif
    let data: Data
    do {
      let handle = try FileHandle(forReadingFrom: url)
      defer { try? handle.close() }
      data = try handle.read(upToCount: limit + 1) ?? Data()
    } catch {
      throw ServiceError(
        .invalidInput, "Cannot read \(url.lastPathComponent): no such file or no permission.")
    }
    guard data.count <= limit else {
      throw ServiceError(
        .invalidInput, "\(url.lastPathComponent) is larger than \(limit / 1024 / 1024) MB.")
    }
    return data
  }

  /// A MIME type from the file extension.
  static func contentType(of url: URL) -> String {
    switch url.pathExtension.lowercased() {
    case "png": "image/png"
    case "jpg", "jpeg": "image/jpeg"
    case "gif": "image/gif"
    case "pdf": "application/pdf"
    case "txt", "md", "log": "text/plain"
    case "json": "application/json"
    default: "application/octet-stream"
    }
  }
}
