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

  /// Sends `endpoint` and gives back its answer: the success as `read` reads it, or an error
  /// status whose body `failure` reads (given the status and the body; `nil` for a status the
  /// document does not type, or a body that is not of its type). Anything else is thrown, as
  /// ``fetch(_:as:)`` throws it.
  func answer<Success: Sendable, Failure: Sendable>(
    _ endpoint: API, read: (HTTPResponse) throws(HTTPError) -> Success,
    failure: (Int, Data) -> Failure?
  ) async throws(RepositoryError) -> APIAnswer<Success, Failure> {
    let response: HTTPResponse
    do {
      response = try await request(endpoint)
    } catch {
      if case .unacceptableStatus(let answer) = error,
        let body = failure(answer.status, answer.body)
      {
        return .failure(status: answer.status, body: body, error: RepositoryError(error))
      }
      throw RepositoryError(error)
    }
    do {
      return .success(try read(response))
    } catch {
      throw RepositoryError(error)
    }
  }

  /// `body` read as a `Failure` the way repositories read answers; `nil` if it is not one.
  func decodedFailure<Failure: Decodable>(_ type: Failure.Type, from body: Data) -> Failure? {
    try? RepositoryCoding.decoder.decode(type, from: body)
  }

  /// Sends the write `endpoint`, ignoring the body, with repository errors; a status that asks
  /// for the same write later (``RepositoryError/tryAgainLaterStatuses``) stays
  /// `.server(status:_:)`, so an outbox sends it again instead of giving it up (`409` would
  /// read as a validation error).
  func write(_ endpoint: API) async throws(RepositoryError) {
    do {
      _ = try await request(endpoint)
    } catch {
      if case .unacceptableStatus(let response) = error,
        RepositoryError.tryAgainLaterStatuses.contains(response.status)
      {
        throw .server(status: response.status, RepositoryError(error).description)
      }
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
