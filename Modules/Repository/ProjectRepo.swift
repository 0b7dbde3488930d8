import TrellisNetwork

/// Projects and their milestones, tags, members and the user's permissions.
///
/// Caching: the project list and each project's milestones, tags and members are kept for
/// five minutes, permissions for one minute (they change more often and guard writes).
/// `forceRefresh` skips the cache; ``clear()`` forgets everything (sign-out).
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
}

/// The ``ProjectRepo`` that calls ``ProjectDataAPI``.
public final class ProjectRepoImpl: ProjectRepo {
  private let requester: HTTPRequester<ProjectDataAPI>
  private let projectList: RepoCache<String, [ProjectModel]>
  private let milestoneLists: RepoCache<Int, [MilestoneModel]>
  private let tagLists: RepoCache<Int, [TagModel]>
  private let memberLists: RepoCache<Int, [MemberModel]>
  private let permissionSets: RepoCache<Int, PermissionsModel>

  /// Creates the repository.
  public init(
    requester: HTTPRequester<ProjectDataAPI>, lifetime: Duration = .seconds(300),
    permissionsLifetime: Duration = .seconds(60)
  ) {
    self.requester = requester
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
      try await requester.fetch(.projects, as: [ProjectModel].self)
    }
  }

  /// See ``ProjectRepo/milestones(projectID:forceRefresh:)``.
  public func milestones(projectID: Int, forceRefresh: Bool = false)
    async throws(RepositoryError) -> [MilestoneModel]
  {
    try await milestoneLists.value(for: projectID, forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      try await requester.fetch(.milestones(projectID: projectID), as: [MilestoneModel].self)
    }
  }

  /// See ``ProjectRepo/tags(projectID:forceRefresh:)``.
  public func tags(projectID: Int, forceRefresh: Bool = false) async throws(RepositoryError)
    -> [TagModel]
  {
    try await tagLists.value(for: projectID, forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      try await requester.fetch(.tags(projectID: projectID), as: [TagModel].self)
    }
  }

  /// See ``ProjectRepo/members(projectID:forceRefresh:)``.
  public func members(projectID: Int, forceRefresh: Bool = false) async throws(RepositoryError)
    -> [MemberModel]
  {
    try await memberLists.value(for: projectID, forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      try await requester.fetch(.members(projectID: projectID), as: [MemberModel].self)
    }
  }

  /// See ``ProjectRepo/permissions(projectID:forceRefresh:)``.
  public func permissions(projectID: Int, forceRefresh: Bool = false)
    async throws(RepositoryError) -> PermissionsModel
  {
    try await permissionSets.value(for: projectID, forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      try await requester.fetch(.permissions(projectID: projectID), as: PermissionsModel.self)
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
