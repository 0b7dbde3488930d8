import Foundation
import TrellisLoopbackServer

extension DemoBackend {
  func registerTaskRoutes() {
    router.post("/projects/:id/tasks") { [self] request in
      let projectID = Int(request.pathParameters["id"] ?? "") ?? -1
      var created: Wire.Task?
      let response = signedIn(request) { userID throws(DemoFailure) in
        try idempotent(request, userID: userID) { () throws(DemoFailure) in
          let draft = try Self.decode(Wire.NewTask.self, from: request)
          let date = now()
          let task = try state.withLock { state throws(DemoFailure) in
            let project = try state.project(projectID, visibleTo: userID)
            guard state.permissions(of: userID, in: projectID).canCreateTasks else {
              throw .forbidden("Viewers cannot create tasks in \(project.name).")
            }
            try Self.validate(draft, in: projectID, state: state, userID: userID)
            return try state.addTask(draft, projectID: projectID, userID: userID, at: date)
          }
          created = task
          return .json(task, status: 201)
        }
      }
      if let created { publish(taskCreated: created) }
      return response
    }

    router.get("/tasks/:id") { [self] request in
      let taskID = Int(request.pathParameters["id"] ?? "") ?? -1
      return signedIn(request) { userID throws(DemoFailure) in
        .json(
          try state.withLock { state throws(DemoFailure) in
            try state.task(taskID, visibleTo: userID)
          })
      }
    }

    // A change of title (validated as a new task's title is) or of done; members and admins
    // only. With `If-Match: "<version>"`, only if the task is still at that version (else
    // `412`, and the task is left as it is).
    router.patch("/tasks/:id") { [self] request in
      let taskID = Int(request.pathParameters["id"] ?? "") ?? -1
      var updated: Wire.Task?
      let response = signedIn(request) { userID throws(DemoFailure) in
        // (Read before the key is recorded: a malformed header is not an answer to remember.)
        let expected = try Self.expectedVersions(in: request)
        return try idempotent(request, userID: userID) { () throws(DemoFailure) in
          let change = try Self.decode(Wire.TaskChange.self, from: request)
          let task = try state.withLock { state throws(DemoFailure) in
            let task = try state.task(taskID, visibleTo: userID)
            try Self.requireWrite(userID, task: task, state: state, doing: "change")
            if let expected, !expected.contains(task.version) {
              throw DemoFailure(
                status: 412,
                body: Wire.Failure(
                  code: "version_mismatch",
                  message: "Someone else changed this task since you loaded it."))
            }
            let title = change.title?.trimmingCharacters(in: .whitespacesAndNewlines)
            if let title, title.isEmpty || title.count > 120 {
              throw .validation(
                title.isEmpty ? "Title is required." : "Check the highlighted fields.",
                fields: ["title": title.isEmpty ? "required" : "at most 120 characters"])
            }
            guard let index = state.tasks.firstIndex(where: { $0.id == taskID }) else {
              return task
            }
            if let title { state.tasks[index].title = title }
            if let isDone = change.isDone { state.tasks[index].isDone = isDone }
            state.tasks[index].version += 1
            return state.tasks[index]
          }
          updated = task
          return .json(task)
        }
      }
      if let updated { publish(task: updated, as: "task.updated") }
      return response
    }

    router.delete("/tasks/:id") { [self] request in
      let taskID = Int(request.pathParameters["id"] ?? "") ?? -1
      var deleted: Wire.Task?
      let response = signedIn(request) { userID throws(DemoFailure) in
        try idempotent(request, userID: userID) { () throws(DemoFailure) in
          let task = try state.withLock { state throws(DemoFailure) in
            let task = try state.task(taskID, visibleTo: userID)
            try Self.requireWrite(userID, task: task, state: state, doing: "delete")
            state.tasks.removeAll { $0.id == taskID }
            return task
          }
          deleted = task
          return ServerResponse(status: 204)
        }
      }
      if let deleted { publish(task: deleted, as: "task.deleted") }
      return response
    }
  }

  /// Viewers may read a project's tasks but not change them.
  private static func requireWrite(
    _ userID: Int, task: Wire.Task, state: DemoState, doing verb: String
  ) throws(DemoFailure) {
    guard state.permissions(of: userID, in: task.projectID).canCreateTasks else {
      let project = state.projects.first { $0.id == task.projectID }?.name ?? "this project"
      throw .forbidden("Viewers cannot \(verb) tasks in \(project).")
    }
  }

  private static func validate(
    _ draft: Wire.NewTask, in projectID: Int, state: DemoState, userID: Int
  ) throws(DemoFailure) {
    var fields: [String: String] = [:]
    let title = draft.title.trimmingCharacters(in: .whitespacesAndNewlines)
    if title.isEmpty { fields["title"] = "required" }
    if title.count > 120 { fields["title"] = "at most 120 characters" }
    if let milestone = draft.milestoneID,
      !(state.milestones[projectID] ?? []).contains(where: { $0.id == milestone })
    {
      fields["milestoneID"] = "not a milestone of this project"
    }
    let tagIDs = Set((state.tags[projectID] ?? []).map(\.id))
    if !(draft.tagIDs ?? []).allSatisfy(tagIDs.contains) {
      fields["tagIDs"] = "not tags of this project"
    }
    if !(draft.assigneeIDs ?? []).allSatisfy({ state.role(of: $0, in: projectID) != nil }) {
      fields["assigneeIDs"] = "not members of this project"
    }
    if !(draft.attachmentIDs ?? []).allSatisfy({ state.files[$0]?.ownerID == userID }) {
      fields["attachmentIDs"] = "not files you uploaded"
    }
    guard fields.isEmpty else {
      let message =
        fields["title"] == "required" ? "Title is required." : "Check the highlighted fields."
      throw .validation(message, fields: fields)
    }
  }

  func registerFileRoutes() {
    router.post("/files") { [self] request in
      let settings = currentConfiguration
      return signedIn(request, latency: settings.uploadLatency) { userID throws(DemoFailure) in
        guard !settings.failsUploads else {
          throw .unavailable("The upload failed on the server. Try again.", code: "upload_failed")
        }
        guard let parts = request.multipartParts,
          let file = parts.first(where: { $0.name == "file" && $0.fileName != nil })
        else {
          throw .validation(
            "Send the file as the multipart part named \"file\".", fields: ["file": "required"])
        }
        guard file.data.count <= 5 * 1024 * 1024 else {
          throw DemoFailure(
            status: 413,
            body: Wire.Failure(code: "too_large", message: "Files can be at most 5 MB."))
        }
        let info = try state.withLock { state throws(DemoFailure) in
          guard state.files.count < DemoState.maximumFiles else {
            throw DemoFailure(
              status: 507,
              body: Wire.Failure(
                code: "storage_full",
                message: "The demo holds at most \(DemoState.maximumFiles) files."))
          }
          let info = Wire.FileInfo(
            id: state.nextFileID, name: file.fileName ?? "file", size: file.data.count,
            contentType: file.contentType ?? "application/octet-stream")
          state.nextFileID += 1
          state.files[info.id] = (info, userID)
          return info
        }
        return .json(info, status: 201)
      }
    }
  }
}
