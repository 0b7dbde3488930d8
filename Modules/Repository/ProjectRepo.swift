import TrellisCore
import TrellisNetwork

/// Projects and their milestones, tags, members and the user's permissions.
///
/// Caching: the project list and each project's milestones, tags and members are kept for
/// five minutes, permissions for one minute (they change more often and guard writes).
/// `forceRefresh` skips the cache; ``clear()`` forgets everything (sign-out). With a
/// ``LocalStore`` the project list and each project's context are kept between launches too
/// (``storedProjects()``, ``storedContext(projectID:)``).
public protocol ProjectRepo: Sendable {
  /// The projects the user is a member of.
  func projects(forceRefresh: Bool) async throws(RepositoryError) -> [ProjectModel]
  /// A project's milestones.
  func milestones(projectID: Int, forceRefresh: Bool) async throws(RepositoryError)
    -> [MilestoneModel]
  /// A project's tags.
  func tags(projectID: Int, forceRefresh: Bool) async throws(RepositoryError) -> [TagModel]
  /// A project's members.
  func members(projectID: Int, forceRefresh: Bool) async throws(RepositoryError) -> [MemberModel]
  /// What the user may do in a project.
  func permissions(projectID: Int, forceRefresh: Bool) async throws(RepositoryError)
    -> PermissionsModel
  /// Forgets everything cached.
  func clear()
  /// The project list as last answered, with when; `nil` when none is stored. No request.
  func storedProjects() -> Stored<[ProjectModel]>?
  /// The project's milestones, tags, members and permissions as last answered, with when the
  /// oldest of them was; `nil` unless all four are stored. No request.
  func storedContext(projectID: Int) -> Stored<ProjectContextModel>?
}

extension ProjectRepo {
  /// None: a repository that keeps nothing between launches.
  public func storedProjects() -> Stored<[ProjectModel]>? { nil }
  /// None: a repository that keeps nothing between launches.
  public func storedContext(projectID: Int) -> Stored<ProjectContextModel>? { nil }
}

/// The ``ProjectRepo`` that calls ``ProjectDataAPI``.
public final class ProjectRepoImpl: ProjectRepo {
  private let requester: HTTPRequester<ProjectDataAPI>
  private let projectList: RepoCache<String, [ProjectModel]>
  private let milestoneLists: RepoCache<Int, [MilestoneModel]>
  private let tagLists: RepoCache<Int, [TagModel]>
  private let memberLists: RepoCache<Int, [MemberModel]>
  private let permissionSets: RepoCache<Int, PermissionsModel>
  private let store: (any LocalStore)?

  /// Creates the repository; `store` keeps the project list and the contexts between launches.
  public init(
    requester: HTTPRequester<ProjectDataAPI>, lifetime: Duration = .seconds(300),
    permissionsLifetime: Duration = .seconds(60), store: (any LocalStore)? = nil
  ) {
    self.requester = requester
    self.store = store
    projectList = RepoCache(lifetime: lifetime)
    milestoneLists = RepoCache(lifetime: lifetime)
    tagLists = RepoCache(lifetime: lifetime)
    memberLists = RepoCache(lifetime: lifetime)
    permissionSets = RepoCache(lifetime: permissionsLifetime)
  }

  /// See ``ProjectRepo/projects(forceRefresh:)``.
  public func projects(forceRefresh: Bool = false) async throws(RepositoryError)
    -> [ProjectModel]
  {
    try await projectList.value(for: "all", forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      let store = store?.pinned()  // the user's who asked, whoever is signed in at the answer
      let projects = try await requester.fetch(.projects, as: [ProjectModel].self)
      store?.keep(projects, forKey: "projects")
      return projects
    }
  }

  /// See ``ProjectRepo/storedProjects()``.
  public func storedProjects() -> Stored<[ProjectModel]>? {
    store?.value([ProjectModel].self, forKey: "projects")
  }

  /// See ``ProjectRepo/storedContext(projectID:)``.
  public func storedContext(projectID: Int) -> Stored<ProjectContextModel>? {
    guard let store,
      let milestones = store.value(
        [MilestoneModel].self, forKey: Self.key("milestones", projectID)),
      let tags = store.value([TagModel].self, forKey: Self.key("tags", projectID)),
      let members = store.value([MemberModel].self, forKey: Self.key("members", projectID)),
      let permissions = store.value(
        PermissionsModel.self, forKey: Self.key("permissions", projectID))
    else { return nil }
    let storedAt =
      [milestones.storedAt, tags.storedAt, members.storedAt, permissions.storedAt]
      .min() ?? permissions.storedAt
    return Stored(
      ProjectContextModel(
        milestones: milestones.value, tags: tags.value, members: members.value,
        permissions: permissions.value), storedAt: storedAt)
  }

  /// Where a part of a project's context is kept (`tags.2`).
  private static func key(_ part: String, _ projectID: Int) -> String { "\(part).\(projectID)" }

  /// Fetches `endpoint` and keeps the answer under `key` (when there is a store).
  private func fetchKeeping<Value: Codable & Sendable>(
    _ endpoint: ProjectDataAPI, as type: Value.Type, key: String
  ) async throws(RepositoryError) -> Value {
    let store = store?.pinned()  // the user's who asked, whoever is signed in at the answer
    let value = try await requester.fetch(endpoint, as: type)
    store?.keep(value, forKey: key)
    return value
  }

  /// See ``ProjectRepo/milestones(projectID:forceRefresh:)``.
  public func milestones(projectID: Int, forceRefresh: Bool = false)
    async throws(RepositoryError) -> [MilestoneModel]
  {
    try await milestoneLists.value(for: projectID, forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      try await fetchKeeping(
        .milestones(projectID: projectID), as: [MilestoneModel].self,
        key: Self.key("milestones", projectID))
    }
  }

  /// See ``ProjectRepo/tags(projectID:forceRefresh:)``.
  public func tags(projectID: Int, forceRefresh: Bool = false) async throws(RepositoryError)
    -> [TagModel]
  {
    try await tagLists.value(for: projectID, forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      try await fetchKeeping(
        .tags(projectID: projectID), as: [TagModel].self, key: Self.key("tags", projectID))
    }
  }

  /// See ``ProjectRepo/members(projectID:forceRefresh:)``.
  public func members(projectID: Int, forceRefresh: Bool = false) async throws(RepositoryError)
    -> [MemberModel]
  {
    try await memberLists.value(for: projectID, forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      try await fetchKeeping(
        .members(projectID: projectID), as: [MemberModel].self, key: Self.key("members", projectID))
    }
  }

  /// See ``ProjectRepo/permissions(projectID:forceRefresh:)``.
  public func permissions(projectID: Int, forceRefresh: Bool = false)
    async throws(RepositoryError) -> PermissionsModel
  {
    try await permissionSets.value(for: projectID, forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      try await fetchKeeping(
        .permissions(projectID: projectID), as: PermissionsModel.self,
        key: Self.key("permissions", projectID))
    }
  }

  /// See ``ProjectRepo/clear()``.
  public func clear() {
    projectList.invalidateAll()
    milestoneLists.invalidateAll()
    tagLists.invalidateAll()
    memberLists.invalidateAll()
    permissionSets.invalidateAll()
  }
}
