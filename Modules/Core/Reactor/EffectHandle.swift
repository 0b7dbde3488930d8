/// One effect in flight: its task, its identity, and the identified or merged parts it started.
///
/// Cancelling a handle sets its flag before anything else, and every delivery checks the flag,
/// so a cancelled effect delivers nothing even if its operation ignores cancellation.
@MainActor
@usableFromInline
final class EffectHandle {
  @usableFromInline let serial: Int
  @usableFromInline let key: AnyHashable?
  @usableFromInline private(set) var isCancelled = false
  @usableFromInline var task: Task<Void, any Error>? {
    didSet { if isCancelled { task?.cancel() } }
  }
  private var children: [Int: EffectHandle] = [:]

  @usableFromInline
  init(serial: Int, key: AnyHashable?) {
    self.serial = serial
    self.key = key
  }

  @usableFromInline
  func cancel() {
    guard !isCancelled else { return }
    isCancelled = true
    task?.cancel()
    for child in children.values { child.cancel() }
  }

  @usableFromInline
  func adopt(_ child: EffectHandle) {
    children[child.serial] = child
    if isCancelled { child.cancel() }
  }

  @usableFromInline
  func release(_ child: EffectHandle) {
    children[child.serial] = nil
  }
}

/// The parts of one `merge`: the first error wins and cancels the rest.
@MainActor
@usableFromInline
final class MergeGroup {
  @usableFromInline var parts: [EffectHandle] = []
  @usableFromInline private(set) var firstError: (any Error)?

  @usableFromInline init() {}

  @usableFromInline
  func fail(with error: any Error) {
    guard firstError == nil else { return }
    firstError = error
    for part in parts { part.cancel() }
  }
}
