import Foundation
import Testing
import TrellisLoopbackServer
import TrellisNetwork

@testable import TrellisDemoBackend

/// The writes an outbox sends again are made once: a create, a change or a delete sent twice
/// with its `Idempotency-Key` (its answer was lost) gets the first answer again; the key is
/// the user's own, bound to its request, and a change can say which version it was made to.
@Suite("Demo backend: idempotency keys and versions")
struct IdempotencyTests {
  @Test func aCreateSentTwiceWithItsKeyMakesOneTask() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let token = try await client.login().accessToken
    let before = try decode(
      Wire.TaskPage.self, await client.call(.get, "/projects/1/tasks?limit=100", token: token))
    let key: HTTPHeaders = ["Idempotency-Key": "create-7f3a"]
    let first = await client.call(
      .post, "/projects/1/tasks", token: token, json: #"{"title":"Once"}"#, headers: key)
    let second = await client.call(
      .post, "/projects/1/tasks", token: token, json: #"{"title":"Once"}"#, headers: key)
    #expect(first.status == 201 && second.status == 201)
    #expect(try decode(Wire.Task.self, first) == decode(Wire.Task.self, second))
    #expect(second.headers["Idempotent-Replayed"] == "true")
    #expect(first.headers["Idempotent-Replayed"] == nil)
    let after = try decode(
      Wire.TaskPage.self, await client.call(.get, "/projects/1/tasks?limit=100", token: token))
    #expect(after.tasks.count == before.tasks.count + 1)
    #expect(after.tasks.filter { $0.title == "Once" }.count == 1)
    // The same value encoded with its keys in another order is the same request.
    let reordered = await client.call(
      .post, "/projects/1/tasks", token: token, json: #"{"body":"","title":"Same"}"#,
      headers: ["Idempotency-Key": "order"])
    let reorderedAgain = await client.call(
      .post, "/projects/1/tasks", token: token, json: #"{"title":"Same","body":""}"#,
      headers: ["Idempotency-Key": "order"])
    #expect(reordered.status == 201 && reorderedAgain.status == 201)
    #expect(reorderedAgain.headers["Idempotent-Replayed"] == "true")
    // Without a key, each request is a write of its own.
    _ = await client.call(.post, "/projects/1/tasks", token: token, json: #"{"title":"Twice"}"#)
    _ = await client.call(.post, "/projects/1/tasks", token: token, json: #"{"title":"Twice"}"#)
    let unkeyed = try decode(
      Wire.TaskPage.self, await client.call(.get, "/projects/1/tasks?limit=100", token: token))
    #expect(unkeyed.tasks.filter { $0.title == "Twice" }.count == 2)
  }

  @Test func aChangeAndADeleteSentTwiceAreMadeOnce() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let token = try await client.login().accessToken
    let taskID = try #require(backend.createTaskElsewhere(projectID: 1, title: "Draft"))
    let change: HTTPHeaders = ["Idempotency-Key": "change-1"]
    let first = await client.call(
      .patch, "/tasks/\(taskID)", token: token, json: #"{"isDone":true}"#, headers: change)
    let again = await client.call(
      .patch, "/tasks/\(taskID)", token: token, json: #"{"isDone":true}"#, headers: change)
    #expect(try decode(Wire.Task.self, first).version == 2)
    #expect(try decode(Wire.Task.self, again).version == 2)  // not changed a second time
    let delete: HTTPHeaders = ["Idempotency-Key": "delete-1"]
    #expect(
      await client.call(.delete, "/tasks/\(taskID)", token: token, headers: delete).status == 204)
    // Its answer lost, the delete is sent again: still a success, not a 404.
    #expect(
      await client.call(.delete, "/tasks/\(taskID)", token: token, headers: delete).status == 204)
    #expect(await client.call(.get, "/tasks/\(taskID)", token: token).status == 404)
  }

  @Test func aKeyIsBoundToItsRequestAndItsUser() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let alice = try await client.login().accessToken
    let bob = try await client.login("bob").accessToken
    let key: HTTPHeaders = ["Idempotency-Key": "shared-key"]
    let first = await client.call(
      .post, "/projects/1/tasks", token: alice, json: #"{"title":"Alice's"}"#, headers: key)
    #expect(first.status == 201)
    // The same key with another body is refused, and makes nothing.
    let other = await client.call(
      .post, "/projects/1/tasks", token: alice, json: #"{"title":"Other"}"#, headers: key)
    #expect(other.status == 422)
    #expect(try failure(other).code == "idempotency_key_reused")
    // Another user's key of the same text is theirs: a write of its own.
    let bobs = await client.call(
      .post, "/projects/1/tasks", token: bob, json: #"{"title":"Alice's"}"#, headers: key)
    #expect(bobs.status == 201)
    #expect(try decode(Wire.Task.self, bobs).id != decode(Wire.Task.self, first).id)
    #expect(try decode(Wire.Task.self, bobs).createdBy != 1)
    // A key that is not one.
    for bad in ["", String(repeating: "k", count: 256), "has space", "é"] {
      let response = await client.call(
        .post, "/projects/1/tasks", token: alice, json: #"{"title":"x"}"#,
        headers: ["Idempotency-Key": bad])
      #expect(response.status == 400, "\(bad)")
    }
  }

  @Test func aRefusalIsRememberedAndAServerFailureIsNot() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let token = try await client.login().accessToken
    let key: HTTPHeaders = ["Idempotency-Key": "blank"]
    let refused = await client.call(
      .post, "/projects/1/tasks", token: token, json: #"{"title":" "}"#, headers: key)
    #expect(refused.status == 422)
    let again = await client.call(
      .post, "/projects/1/tasks", token: token, json: #"{"title":" "}"#, headers: key)
    #expect(again.status == 422 && again.headers["Idempotent-Replayed"] == "true")
    // A failure of the server's is not kept: the write is made when sent again.
    backend.configure { $0.failsRequests = true }
    let failing: HTTPHeaders = ["Idempotency-Key": "retry-me"]
    let down = await client.call(
      .post, "/projects/1/tasks", token: token, json: #"{"title":"Later"}"#, headers: failing)
    #expect(down.status == 503)
    backend.configure { $0.failsRequests = false }
    let up = await client.call(
      .post, "/projects/1/tasks", token: token, json: #"{"title":"Later"}"#, headers: failing)
    #expect(up.status == 201 && up.headers["Idempotent-Replayed"] == nil)
  }

  @Test func aChangeMadeToAnOlderVersionIsRefusedAndChangesNothing() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let token = try await client.login().accessToken
    let taskID = try #require(backend.createTaskElsewhere(projectID: 1, title: "Draft"))
    let read = try decode(Wire.Task.self, await client.call(.get, "/tasks/\(taskID)", token: token))
    #expect(read.version == 1)
    let renamed = await client.call(
      .patch, "/tasks/\(taskID)", token: token, json: #"{"title":"Theirs"}"#,
      headers: ["If-Match": "\"1\""])
    #expect(try decode(Wire.Task.self, renamed).version == 2)
    let stale = await client.call(
      .patch, "/tasks/\(taskID)", token: token, json: #"{"title":"Mine"}"#,
      headers: ["If-Match": "\"1\""])
    #expect(stale.status == 412)
    #expect(try failure(stale).code == "version_mismatch")
    let now = try decode(Wire.Task.self, await client.call(.get, "/tasks/\(taskID)", token: token))
    #expect(now.title == "Theirs" && now.version == 2)
    // A weak tag never matches (strong comparison).
    let weak = await client.call(
      .patch, "/tasks/\(taskID)", token: token, json: #"{"isDone":true}"#,
      headers: ["If-Match": "W/\"2\""])
    #expect(weak.status == 412)
    // The current version (quoted, bare, in a list), or `*`, is accepted.
    for match in ["\"2\"", "3", "\"1\", \"4\"", "*"] {
      let response = await client.call(
        .patch, "/tasks/\(taskID)", token: token, json: #"{"isDone":true}"#,
        headers: ["If-Match": match])
      #expect(response.status == 200, "\(match)")
    }
    let garbled = await client.call(
      .patch, "/tasks/\(taskID)", token: token, json: #"{"isDone":false}"#,
      headers: ["If-Match": "\"v2\"", "Idempotency-Key": "fixed-later"])
    #expect(garbled.status == 400)
    // Not remembered: the same key with the header corrected is made.
    let current = try decode(
      Wire.Task.self, await client.call(.get, "/tasks/\(taskID)", token: token))
    let corrected = await client.call(
      .patch, "/tasks/\(taskID)", token: token, json: #"{"isDone":false}"#,
      headers: ["If-Match": "\"\(current.version)\"", "Idempotency-Key": "fixed-later"])
    #expect(corrected.status == 200)
  }

  @Test func theRecordsAreBounded() {
    var records = IdempotencyRecords()
    for index in 0..<(IdempotencyRecords.limit + 10) {
      _ = records.begin("1 key-\(index)", fingerprint: "f")
      records.finish("1 key-\(index)", with: ServerResponse(status: 201))
    }
    // The oldest went first; the newest are remembered.
    guard case .new = records.begin("1 key-0", fingerprint: "f") else {
      Issue.record("the oldest record was kept past the bound")
      return
    }
    guard case .replay = records.begin("1 key-\(IdempotencyRecords.limit + 9)", fingerprint: "f")
    else {
      Issue.record("the newest record was not kept")
      return
    }
  }
}
