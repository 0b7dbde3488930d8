import Foundation
import TrellisNetwork

/// File uploads.
public enum FileDataAPI: HTTPEndpoint {
  /// `POST /files` with the file as the multipart part `file`.
  case upload(fileName: String, contentType: String, data: Data)

  /// `/files`.
  public var path: String { "/files" }

  /// `POST`.
  public var method: HTTPMethod { .post }

  /// A `multipart/form-data` body.
  public var body: HTTPRequestBody {
    switch self {
    case .upload(let fileName, let contentType, let data):
      .multipart([.file("file", fileName: fileName, contentType: contentType, data: data)])
    }
  }

  /// Uploads get longer than other requests.
  public var timeout: Duration? { .seconds(120) }
}
