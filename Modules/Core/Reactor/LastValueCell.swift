/// The previous value seen by one duplicate-removing observer.
///
/// A variable captured by an escaping closure, or a class's stored `var`, pays a dynamic
/// exclusivity check on each access; observers run on every state change, so the cell keeps
/// its value behind a pointer held in a `let`. Safe because each cell belongs to exactly one
/// main-actor observer closure, which reads and writes it in single statements that never
/// call out while an access is open, so no two accesses can overlap.
@usableFromInline
final class LastValueCell<Value> {
  @usableFromInline let pointer: UnsafeMutablePointer<Value?>

  @usableFromInline
  init() {
    pointer = .allocate(capacity: 1)
    pointer.initialize(to: nil)
  }

  deinit {
    pointer.deinitialize(count: 1)
    pointer.deallocate()
  }
}
