import Foundation
import Testing
import TrellisDemoBackend
import TrellisNetwork
import TrellisRepository

/// What an outbox relies on, sent as ``TaskDataAPI`` writes it: a write sent again with its
/// `Idempotency-Key` is made once, and a change made to an older version is refused (`412`).
@Suite("TaskDataAPI's writes: idempotency keys and versions, against the demo backend")
struct TaskWriteContractTests {
  @Test(arguments: BackendMode.allCases)
  func aWriteSentAgainWithItsKeyIsMadeOnce(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let requester: HTTPRequester<TaskDataAPI> = harness.requester()
    let create = TaskDataAPI.create(
      projectID: 1, NewTaskModel(title: "Once"), idempotencyKey: "0F0E-create")
    let first = try await requester.request(create).decode(TaskModel.self, using: Self.decoder)
    let again = try await requester.request(create)
    #expect(try again.decode(TaskModel.self, using: Self.decoder) == first)
    #expect(again.headers["Idempotent-Replayed"] == "true")
    #expect(first.version == 1)

    let change = TaskDataAPI.update(
      id: first.id, TaskChangeModel(isDone: true), idempotencyKey: "0F0E-change",
      expectedVersion: first.version)
    let changed = try await requester.request(change).decode(TaskModel.self, using: Self.decoder)
    #expect(changed.isDone && changed.version == 2)
    // Its answer lost, the change is sent again: answered as before, not refused as stale.
    let resent = try await requester.request(change).decode(TaskModel.self, using: Self.decoder)
    #expect(resent == changed)

    let delete = TaskDataAPI.delete(id: first.id, idempotencyKey: "0F0E-delete")
    _ = try await requester.request(delete)
    #expect(try await requester.request(delete).status == 204)
    let page = try await requester.request(.tasks(projectID: 1, limit: 100))
      .decode(TaskPageModel.self, using: Self.decoder)
    #expect(!page.tasks.contains { $0.title == "Once" })
  }

  @Test(arguments: BackendMode.allCases)
  func aChangeToAnOlderVersionIsRefused(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let requester: HTTPRequester<TaskDataAPI> = harness.requester()
    let id = try #require(harness.backend.createTaskElsewhere(projectID: 1, title: "Shared"))
    _ = try await requester.request(.update(id: id, TaskChangeModel(title: "Theirs")))
    do {
      _ = try await requester.request(
        .update(id: id, TaskChangeModel(title: "Mine"), expectedVersion: 1))
      Issue.record("a change to version 1 of a task at version 2 was made")
    } catch {
      guard case .unacceptableStatus(let response) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(response.status == 412)
      #expect(
        RepositoryError(error).description == "Someone else changed this task since you loaded it.")
    }
    let task = try await requester.request(.task(id: id)).decode(
      TaskModel.self, using: Self.decoder)
    #expect(task.title == "Theirs" && task.version == 2)
  }

  private static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }()
}
