import TrellisReactor
import TrellisService

extension Choice {
  /// A project as the task screens list it: its name, its key beside it.
  init(_ project: Project) {
    self.init(id: project.id, title: project.name, detail: project.key)
  }
}
