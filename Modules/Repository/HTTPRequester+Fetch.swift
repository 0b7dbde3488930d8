import Foundation
import TrellisNetwork

/// How repositories decode responses: dates as ISO 8601.
enum RepositoryCoding {
  static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }()
}

extension HTTPRequester {
  /// Sends `endpoint` and decodes the body, with repository errors.
  func fetch<Value: Decodable>(_ endpoint: API, as type: Value.Type) async throws(RepositoryError)
    -> Value
  {
    do {
      return try await request(endpoint).decode(type, using: RepositoryCoding.decoder)
    } catch {
      throw RepositoryError(error)
    }
  }

  /// Sends `endpoint`, ignoring the body, with repository errors.
  func send(_ endpoint: API) async throws(RepositoryError) {
    do {
      _ = try await request(endpoint)
    } catch {
      throw RepositoryError(error)
    }
  }
}
