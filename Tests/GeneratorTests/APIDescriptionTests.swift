import Foundation
import Testing
import TrellisNetwork
import TrellisRepository

@testable import TrellisGenerator

/// docs/openapi.yaml, the demo API's description, read as `trellis-gen api` reads it.
private func demoDescription() throws -> APIDescription {
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  let text = try String(
    contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
  return try APIDescription(YAMLReader.read(text))
}

/// The demo's hand-written endpoints, with sample values: each is checked against the
/// description.
private let handWrittenEndpoints: [any HTTPEndpoint & Sendable] = [
  AuthDataAPI.login(CredentialsModel(username: "alice", password: "secret")),
  AuthDataAPI.refresh(RefreshTokenModel(refreshToken: "r")),
  AuthDataAPI.logout(RefreshTokenModel(refreshToken: "r")),
  UserDataAPI.me,
  UserDataAPI.updateProfile(ProfileChangeModel(displayName: "A", title: "B", bio: "C")),
  ProjectDataAPI.projects,
  ProjectDataAPI.milestones(projectID: 1),
  ProjectDataAPI.tags(projectID: 1),
  ProjectDataAPI.members(projectID: 1),
  ProjectDataAPI.permissions(projectID: 1),
  TaskDataAPI.tasks(projectID: 1, query: "a", after: "9", limit: 20),
  TaskDataAPI.create(projectID: 1, NewTaskModel(title: "T", milestoneID: 2)),
  TaskDataAPI.task(id: 1),
  TaskDataAPI.update(id: 1, TaskChangeModel(title: "T", isDone: true)),
  TaskDataAPI.delete(id: 1),
  FileDataAPI.upload(fileName: "a.txt", contentType: "text/plain", data: Data("a".utf8)),
]

/// The demo's hand-written models, each with every field set, by the schema describing it.
private func handWrittenModels() -> [(schema: String, value: any Encodable)] {
  [
    ("Credentials", CredentialsModel(username: "a", password: "b")),
    ("RefreshToken", RefreshTokenModel(refreshToken: "r")),
    ("Tokens", TokensModel(accessToken: "a", refreshToken: "r", expiresIn: 1, user: .sample)),
    ("User", UserModel.sample),
    ("ProfileChange", ProfileChangeModel(displayName: "a", title: "b", bio: "c")),
    ("Project", ProjectModel(id: 1, key: "K", name: "N", color: "red")),
    ("Milestone", MilestoneModel(id: 1, name: "M", dueDate: "2026-01-01")),
    ("Tag", TagModel(id: 1, name: "T", color: "red")),
    ("Member", MemberModel(userID: 1, displayName: "A", role: "owner")),
    (
      "Permissions",
      PermissionsModel(role: "owner", canCreateTasks: true, canAssign: true, canUpload: true)
    ),
    ("File", FileModel(id: 1, name: "a", size: 1, contentType: "text/plain")),
    ("Task", TaskModel.sample),
    ("TaskPage", TaskPageModel(tasks: [], nextCursor: "1")),
    ("TaskChange", TaskChangeModel(title: "a", isDone: true)),
    ("NewTask", NewTaskModel(title: "a", body: "b", milestoneID: 1)),
  ]
}

extension UserModel {
  fileprivate static let sample = UserModel(
    id: 1, username: "alice", displayName: "Alice", email: "a@example.com", title: "T", bio: "B")
}

extension TaskModel {
  fileprivate static let sample = TaskModel(
    id: 1, projectID: 1, title: "T", body: "B", milestoneID: 2, tagIDs: [1], assigneeIDs: [1],
    attachments: [], createdBy: 1, createdAt: Date(timeIntervalSince1970: 0), isDone: true,
    version: 3)
}

/// The description, the demo backend and the client cannot drift apart silently: what
/// docs/openapi.yaml describes is what the hand-written DataAPIs send and the models hold (and
/// the end-to-end tests run the client against the backend).
@Suite("docs/openapi.yaml describes the demo's hand-written client")
struct APIDescriptionTests {
  /// The operation whose method and path template `endpoint` sends to.
  private func describedOperation(for endpoint: any HTTPEndpoint, in description: APIDescription)
    -> APIDescription.Operation?
  {
    let segments = endpoint.path.split(separator: "/")
    return description.operations.first { operation in
      let template = operation.path.split(separator: "/")
      return operation.method == endpoint.method.rawValue && template.count == segments.count
        && zip(template, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
    }
  }

  /// The object schema named `name`, its allOf parts merged.
  private func object(_ name: String, in description: APIDescription) -> APIDescription.Object? {
    guard let schema = description.schemas.first(where: { $0.name == name })?.schema,
      case .object(let object) = schema
    else { return nil }
    return object
  }

  /// The JSON keys of `value`, encoded.
  private func keys(of value: any Encodable) throws -> Set<String> {
    let data = try JSONEncoder().encode(value)
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    return Set(object?.keys.map { $0 } ?? [])
  }

  /// Each hand-written endpoint is an operation of the description: method, path, query,
  /// session and body alike; and every operation of the description has its endpoint.
  @Test func everyEndpointIsDescribedAsItIsSent() throws {
    let description = try demoDescription()
    var matched: Set<String> = []
    for endpoint in handWrittenEndpoints {
      let operation = try #require(
        describedOperation(for: endpoint, in: description), "\(endpoint.summary) is not described")
      matched.insert(operation.id)
      #expect(
        operation.requiresAuthentication == endpoint.requiresAuthentication,
        "\(endpoint.summary): the session")
      let described = operation.parameters.filter { $0.location == .query }
      let sent = Set(endpoint.query.map(\.name))
      #expect(sent.isSubset(of: Set(described.map(\.name))), "\(endpoint.summary): query \(sent)")
      for parameter in described where parameter.isRequired {
        #expect(sent.contains(parameter.name), "\(endpoint.summary): \(parameter.name) required")
      }
      switch (endpoint.body, operation.body) {
      case (.none, nil), (.multipart, .multipart?): break
      case (.json(let value), .json(.reference(let name))?):
        let schema = try #require(object(name, in: description))
        let fields = Set(schema.properties.map(\.name))
        let keys = try keys(of: value)
        #expect(keys.isSubset(of: fields), "\(endpoint.summary): \(keys.subtracting(fields))")
      default:
        Issue.record("\(endpoint.summary): the body is not as described")
      }
    }
    let missing = description.operations.map(\.id).filter { !matched.contains($0) }
    #expect(missing.isEmpty, "described, but no hand-written endpoint: \(missing)")
  }

  /// Each model holds the fields its schema lists, optional exactly where the schema lets a
  /// field be missing or null.
  @Test func everyModelHoldsItsSchemasFields() throws {
    let description = try demoDescription()
    for (name, value) in handWrittenModels() {
      let schema = try #require(object(name, in: description), "no schema \(name)")
      let encoded = try keys(of: value)
      let fields = Set(schema.properties.map(\.name))
      #expect(encoded == fields, "\(name): the model has \(encoded), the schema \(fields)")
      for property in schema.properties {
        let child = Mirror(reflecting: value).children.first { $0.label == property.name }
        let isOptional = child.map { Mirror(reflecting: $0.value).displayStyle == .optional }
        var nullable = false
        if case .nullable = property.schema { nullable = true }
        #expect(
          isOptional == (!property.isRequired || nullable),
          "\(name).\(property.name): optional in Swift as in the schema")
      }
    }
  }

  /// The stream is the one operation left out, for `EventStreamClient`.
  @Test func theEventStreamIsLeftOutWithItsReason() throws {
    let description = try demoDescription()
    #expect(description.skipped.count == 1)
    #expect(description.skipped.first?.hasPrefix("\(EventDataAPI.stream.summary):") == true)
  }
}
