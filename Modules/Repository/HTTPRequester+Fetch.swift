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

  /// Sends `endpoint` and gives back the body's bytes, with repository errors.
  func fetchData(_ endpoint: API) async throws(RepositoryError) -> Data {
    do {
      return try await request(endpoint).body
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

extension HTTPRequester.Configuration {
  /// The default configuration, with dates written and read as ISO 8601 text (as the
  /// repositories read them): what `trellis-gen api` gives its repositories' requesters.
  public static var iso8601Dates: Self {
    let configuration = Self()
    configuration.encoder.dateEncodingStrategy = .iso8601
    configuration.decoder.dateDecodingStrategy = .iso8601
    return configuration
  }
}

extension HTTPStub {
  /// `value` as a JSON answer with dates as ISO 8601 text, as the repositories read them (the
  /// stubs `trellis-gen api` writes use it).
  public static func iso8601JSON(_ value: some Encodable, status: Int = 200) -> HTTPStub {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    let body = (try? encoder.encode(value)) ?? Data()
    return .status(status, headers: ["Content-Type": "application/json"], body: body)
  }
}
