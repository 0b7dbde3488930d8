import TrellisRepository

// How the Repository layer's data models become the domain models services hand to reactors.

extension TaskItem {
  init(_ model: TaskModel) {
    self.init(
      id: model.id, projectID: model.projectID, title: model.title, milestoneID: model.milestoneID,
      tagIDs: model.tagIDs, assigneeIDs: model.assigneeIDs,
      attachments: model.attachments.map { Attachment($0) }, createdBy: model.createdBy,
      isDone: model.isDone, version: model.version)
  }
}

extension TaskPage {
  init(_ model: TaskPageModel) {
    self.init(tasks: model.tasks.map { TaskItem($0) }, nextCursor: model.nextCursor)
  }
}

extension Attachment {
  init(_ model: FileModel) {
    self.init(id: model.id, name: model.name, size: model.size, contentType: model.contentType)
  }
}
