import Foundation
import Testing
import TrellisNetwork

@testable import TrellisRepository

/// The server's own message reaches the user, whatever shape its error answer takes: the error
/// bodies of real APIs, not only this starter's `APIErrorModel`.
@Suite("RepositoryError: the server's message, from the error bodies APIs send")
struct ServerErrorBodyTests {
  private func error(_ status: Int, _ body: String) -> RepositoryError {
    RepositoryError(
      .unacceptableStatus(
        HTTPResponse(
          status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8),
          request: HTTPRequest(method: .get, url: URL(string: "https://api.example.com/pets/1")!)
        )))
  }

  @Test(arguments: [
    (404, #"{"code":404,"message":"Pet not found"}"#, "Pet not found"),  // the petstore's
    (404, #"{"code":"not_found","message":"No such task"}"#, "No such task"),  // APIErrorModel
    (400, #"{"error":"invalid_request","error_description":"Bad scope"}"#, "Bad scope"),  // OAuth
    (
      404, #"{"type":"about:blank","title":"Not Found","detail":"Order 7 is gone"}"#,
      "Order 7 is gone"
    ),  // RFC 9457
    (
      403, #"{"error":{"code":403,"message":"Quota exceeded","status":"PERMISSION_DENIED"}}"#,
      "Quota exceeded"
    ),  // Google
    (422, #"{"errors":[{"message":"Title is required"}]}"#, "Title is required"),  // GitHub-like
    (500, #"{"error":"Something broke\nbadly"}"#, "Something broke badly"),
    (404, #"<html>Not found</html>"#, "The server answered with status 404."),
    (404, #"{"code":404}"#, "The server answered with status 404."),
  ])
  func theServersMessageIsRead(status: Int, body: String, message: String) {
    #expect(error(status, body).message == message)
  }

  @Test func theKindFollowsTheStatusAndFieldsAreKept() {
    #expect(error(404, #"{"code":404,"message":"Pet not found"}"#) == .notFound("Pet not found"))
    #expect(
      error(422, #"{"message":"Invalid","fields":{"title":"required"}}"#)
        == .validation("Invalid", fields: ["title": "required"]))
    let long = String(repeating: "x", count: 2000)
    #expect(error(500, #"{"message":"\#(long)"}"#).message.count == 500)
    let huge = #"{"message":"big","pad":""# + String(repeating: "x", count: 70_000) + #""}"#
    #expect(error(500, huge).message == "The server answered with status 500.")
  }
}
