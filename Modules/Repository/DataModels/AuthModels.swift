/// `POST /auth/login`'s body. Its `description` never shows the password.
public struct CredentialsModel: Codable, Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The user name.
  public var username: String
  /// The password.
  public var password: String

  /// Creates credentials.
  public init(username: String, password: String) {
    self.username = username
    self.password = password
  }

  /// `CredentialsModel(username: alice, password: <redacted>)`.
  public var description: String { "CredentialsModel(username: \(username), password: <redacted>)" }
  /// The same as ``description``.
  public var debugDescription: String { description }
}

/// `POST /auth/refresh`'s and `POST /auth/logout`'s body. Its `description` never shows the
/// token.
public struct RefreshTokenModel: Codable, Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The refresh token.
  public var refreshToken: String

  /// Creates the body.
  public init(refreshToken: String) {
    self.refreshToken = refreshToken
  }

  /// `RefreshTokenModel(<redacted>)`.
  public var description: String { "RefreshTokenModel(<redacted>)" }
  /// The same as ``description``.
  public var debugDescription: String { description }
}

/// What sign-in and refresh return: the tokens and the user they belong to. Its
/// `description` never shows a token.
public struct TokensModel: Codable, Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The bearer token for API calls.
  public var accessToken: String
  /// The token that buys a new access token; rotated on every refresh.
  public var refreshToken: String
  /// Seconds until the access token expires.
  public var expiresIn: Int
  /// The signed-in user.
  public var user: UserModel

  /// Creates tokens.
  public init(accessToken: String, refreshToken: String, expiresIn: Int, user: UserModel) {
    self.accessToken = accessToken
    self.refreshToken = refreshToken
    self.expiresIn = expiresIn
    self.user = user
  }

  /// `TokensModel(user: alice, expiresIn: 30, tokens: <redacted>)`.
  public var description: String {
    "TokensModel(user: \(user.username), expiresIn: \(expiresIn), tokens: <redacted>)"
  }
  /// The same as ``description``.
  public var debugDescription: String { description }
}

/// The JSON body of every error response: `{"code": ..., "message": ..., "fields": {...}}`.
public struct APIErrorModel: Codable, Sendable, Equatable {
  /// A stable machine-readable code, such as `validation_failed`.
  public var code: String
  /// A sentence a person can read.
  public var message: String
  /// For validation errors, what is wrong with each field.
  public var fields: [String: String]?
}
