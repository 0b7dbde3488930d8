import Foundation
import Testing
import TrellisCore

/// One rule decides what is a secret, for headers, query items, bodies and traces alike.
@Suite("One rule for secrets")
struct SecretRuleTests {
  /// Names that carry secrets, in the spellings APIs use.
  static let secretNames = [
    "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-API-Key", "api_key",
    "X-Auth-Token", "X-CSRF-Token", "password", "currentPassword", "userPassword",
    "passwordConfirmation", "new_password", "PASSWD", "access_token", "refreshToken",
    "id_token", "token", "client_secret", "secretAnswer", "otp", "sessionId", "session_id",
    "privateKey", "setPassword", "credentials",
  ]

  /// Names that are not secrets and must stay readable.
  static let plainNames = [
    "Accept", "Content-Type", "page", "username", "title", "displayName", "email", "bio",
    "projectID", "milestoneID", "attachmentIDs", "expiresIn", "user", "id", "name", "query",
  ]

  /// Names the substring rule redacts though they hold nothing secret: accepted, since a
  /// redacted value costs a little readability and a leaked one costs an account.
  static let acceptedFalsePositives = ["tokenCount", "footprint", "secretary", "cookieConsent"]

  @Test(arguments: secretNames)
  func aSecretNameIsRedactedEverywhere(name: String) {
    let redactor = SecretRedactor.standard
    #expect(redactor.isSensitive(name))
    #expect(redactor.redacting([name: "s3cr3t"])[name] == "<redacted>")
    let json = redactor.redacting(jsonObject: ["outer": [name: "s3cr3t"]]) as? [String: Any]
    #expect((json?["outer"] as? [String: Any])?[name] as? String == "<redacted>")
    #expect(redactor.redacting(formEncoded: "\(name)=s3cr3t&page=2") == "\(name)=<redacted>&page=2")
  }

  @Test(arguments: plainNames)
  func aPlainNameIsKept(name: String) {
    #expect(!SecretRedactor.standard.isSensitive(name))
  }

  @Test func theAcceptedFalsePositivesAreTheOnlyOnesKnown() {
    for name in Self.acceptedFalsePositives {
      #expect(SecretRedactor.standard.isSensitive(name), "\(name)")
    }
  }

  private enum Action {
    case setUserPassword(String)
    case save(Form)
  }

  private struct Form {
    var title: String
    var passwordConfirmation: String
  }

  private struct Credentials {
    var userPassword: String
    var apiKey: String
    var username: String
  }

  @Test func tracesRedactByTheSameRule() {
    #expect(
      ReactorTrace.describe(Action.setUserPassword("hunter2")) == "setUserPassword(<redacted>)")
    let form = ReactorTrace.describe(
      Action.save(Form(title: "Hi", passwordConfirmation: "hunter2")))
    #expect(!form.contains("hunter2"), "\(form)")
    #expect(form.contains("\"Hi\""), "\(form)")
    let credentials = ReactorTrace.describe(
      Credentials(userPassword: "hunter2", apiKey: "k-123", username: "alice"))
    #expect(!credentials.contains("hunter2") && !credentials.contains("k-123"), "\(credentials)")
    #expect(credentials.contains("alice"))
  }
}
