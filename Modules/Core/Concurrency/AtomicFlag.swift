import Foundation
import Synchronization

/// A Boolean that any thread reads and sets without a lock held around other work: an
/// observer's or a token's "still active" flag.
///
/// It is Synchronization's `Atomic<Bool>` where the system has it (Linux, iOS 18, macOS 15 and
/// later) and a value guarded by an `NSLock` below that, down to the package's floor; with
/// ``Fallbacks/areForced`` it is always the fallback. Copies share the value.
public struct AtomicFlag: Sendable {
  @usableFromInline let storage: FlagStorage

  /// A flag holding `value`.
  public init(_ value: Bool) {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *), !Fallbacks.areForced {
      storage = AtomicFlagStorage(value)
    } else {
      storage = LockedFlagStorage(value)
    }
  }

  /// The value, with acquiring ordering: what the thread that set it wrote before is visible.
  @inlinable public var value: Bool { storage.load() }

  /// Sets the value, with releasing ordering.
  @inlinable public func set(_ value: Bool) { storage.store(value) }

  /// Whether this flag is the fallback (for tests of ``Fallbacks``).
  public var isFallback: Bool { storage is LockedFlagStorage }
}

/// The storage of an ``AtomicFlag``: one of its two implementations.
///
/// `@unchecked Sendable`: the subclasses touch their Boolean only atomically or under their lock.
@usableFromInline
class FlagStorage: @unchecked Sendable {
  @usableFromInline func load() -> Bool { fatalError("FlagStorage is abstract") }
  @usableFromInline func store(_ value: Bool) { fatalError("FlagStorage is abstract") }
}

/// An ``AtomicFlag`` on Synchronization's `Atomic`.
/// `@unchecked Sendable` as its superclass: its only state is an `Atomic`, itself Sendable.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class AtomicFlagStorage: FlagStorage, @unchecked Sendable {
  let atomic: Atomic<Bool>
  init(_ value: Bool) { atomic = Atomic(value) }
  override func load() -> Bool { atomic.load(ordering: .acquiring) }
  override func store(_ value: Bool) { atomic.store(value, ordering: .releasing) }
}

/// An ``AtomicFlag`` for systems without `Atomic`: a Boolean guarded by an `NSLock`.
/// `@unchecked Sendable`: `flag` is touched only while `lock` is held.
final class LockedFlagStorage: FlagStorage, @unchecked Sendable {
  let lock = NSLock()
  /// Read and written only between `lock.lock()` and `lock.unlock()`.
  nonisolated(unsafe) var flag: Bool
  init(_ value: Bool) { flag = value }
  override func load() -> Bool {
    lock.lock()
    defer { lock.unlock() }
    return flag
  }
  override func store(_ value: Bool) {
    lock.lock()
    defer { lock.unlock() }
    flag = value
  }
}
