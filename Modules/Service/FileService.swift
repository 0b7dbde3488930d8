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
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw ServiceError(
        .invalidInput, "Cannot read \(url.lastPathComponent): no such file or no permission.")
    }
    guard data.count <= maximumSize else {
      throw ServiceError(
        .invalidInput, "\(url.lastPathComponent) is larger than \(maximumSize / 1024 / 1024) MB.")
    }
    do {
      return Attachment(
        try await repo.upload(
          fileName: url.lastPathComponent, contentType: Self.contentType(of: url), data: data,
          progress: progress))
    } catch {
      throw ServiceError(error)
    }
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
