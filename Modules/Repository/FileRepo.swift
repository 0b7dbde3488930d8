import Foundation
import TrellisNetwork

/// Uploads files. Nothing is cached.
public protocol FileRepo: Sendable {
  /// Uploads `data` as `fileName`, reporting the fraction sent to `progress` where the
  /// transport can tell. Cancelling the calling task cancels the upload.
  func upload(
    fileName: String, contentType: String, data: Data,
    progress: (@Sendable (Double) -> Void)?
  ) async throws(RepositoryError) -> FileModel
}

/// The ``FileRepo`` that calls ``FileDataAPI``.
public final class FileRepoImpl: FileRepo {
  private let requester: HTTPRequester<FileDataAPI>

  /// Creates the repository.
  public init(requester: HTTPRequester<FileDataAPI>) {
    self.requester = requester
  }

  /// See ``FileRepo/upload(fileName:contentType:data:progress:)``.
  public func upload(
    fileName: String, contentType: String, data: Data,
    progress: (@Sendable (Double) -> Void)?
  ) async throws(RepositoryError) -> FileModel {
    do {
      return try await requester.request(
        .upload(fileName: fileName, contentType: contentType, data: data), progress: progress
      ).decode(FileModel.self, using: RepositoryCoding.decoder)
    } catch {
      throw RepositoryError(error)
    }
  }
}
