import Foundation
import Testing
import TrellisCore
import TrellisNetwork

@testable import TrellisRepository

@Suite("Server events as the event repository reads them")
struct EventDecodingTests {
  private let logger = Logger(category: "EventDecodingTests", sink: MemoryLogSink())
  private let task = """
    {"id":9,"projectID":1,"title":"From Carol","body":"","tagIDs":[],"assigneeIDs":[],\
    "attachments":[],"createdBy":3,"createdAt":"2026-11-26T00:00:00Z"}
    """

  /// Created, changed and deleted tasks each arrive as what they are, with the task; a
  /// malformed one and an unknown name are ignored as `unknown`.
  @Test(arguments: ["task.created", "task.updated", "task.deleted"])
  func taskEventsCarryTheirTask(name: String) throws {
    let decoded = EventRepoImpl.decode(ServerSentEvent(event: name, data: task), logger: logger)
    let model: TaskModel
    switch decoded {
    case .taskCreated(let task) where name == "task.created": model = task
    case .taskUpdated(let task) where name == "task.updated": model = task
    case .taskDeleted(let task) where name == "task.deleted": model = task
    default:
      Issue.record("\(name) decoded as \(decoded)")
      return
    }
    #expect(model.id == 9 && model.title == "From Carol")
    #expect(
      EventRepoImpl.decode(ServerSentEvent(event: name, data: "{"), logger: logger)
        == .unknown(name: name))
  }
}
