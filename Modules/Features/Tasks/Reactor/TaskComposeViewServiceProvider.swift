import TrellisService

/// The services the task form uses.
public protocol TaskComposeViewServiceProvider: Sendable {
  /// Projects, their context, and task creation.
  var taskService: any TaskService { get }
  /// Attachment uploads.
  var fileService: any FileService { get }
  /// The signed-in user: a name changed elsewhere (the profile) shows in the member list.
  var userService: any UserService { get }
  /// Keeps the form's fields as they are typed, for the next time it opens (after a quit or a
  /// crash).
  var draftService: any DraftService { get }
}
