import Foundation
import Synchronization

/// A value that one thread at a time reads or changes, through ``withLock(_:)``.
///
/// It is Synchronization's `Mutex` where the system has it (Linux, iOS 18, macOS 15 and later)
/// and an `NSLock` beside the value below that, down to the package's floor (iOS 17, macOS 14):
/// the portable layers use it instead of `Mutex`, which would not compile for those systems.
/// ``Fallbacks/areForced`` makes every lock the fallback, so the tests run that path too.
///
/// Copies share the value (the lock is a reference), as a `let` property is never copied in
/// practice; a lock is not reentrant: do not call `withLock` from inside its own body.
public struct Lock<Value>: Sendable {
  @usableFromInline let storage: LockStorage<Value>

  /// A lock protecting `initialValue`.
  public init(_ initialValue: sending Value) {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *), !Fallbacks.areForced {
      storage = MutexStorage(initialValue)
    } else {
      storage = NSLockStorage(initialValue)
    }
  }

  /// Runs `body` with exclusive access to the value and returns what it returns.
  @inlinable
  public func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    try storage.withLock(body)
  }

  /// Whether this lock is the fallback (for tests of ``Fallbacks``).
  public var isFallback: Bool { storage is NSLockStorage<Value> }
}

/// The storage of a ``Lock``: one of its two implementations.
///
/// `@unchecked Sendable`: the subclasses touch the value only while holding their lock (the
/// mutex, or the `NSLock`), and the value enters and leaves through `sending` parameters and
/// results, so no other reference to it outlives a call.
@usableFromInline
class LockStorage<Value>: @unchecked Sendable {
  @usableFromInline
  func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    fatalError("LockStorage is abstract")
  }
}

/// A ``Lock`` on Synchronization's `Mutex`. `@unchecked Sendable` as its superclass: its only
/// state is a `Mutex`, itself Sendable.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
@usableFromInline
final class MutexStorage<Value>: LockStorage<Value>, @unchecked Sendable {
  let mutex: Mutex<Value>

  init(_ value: sending Value) { mutex = Mutex(value) }

  @usableFromInline
  override func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    try mutex.withLock(body)
  }
}

/// A ``Lock`` for systems without `Mutex`: an `NSLock` and the value it guards.
/// `@unchecked Sendable`: `value` is touched only while `lock` is held (see the superclass).
@usableFromInline
final class NSLockStorage<Value>: LockStorage<Value>, @unchecked Sendable {
  let lock = NSLock()
  /// Read and written only between `lock.lock()` and `lock.unlock()`.
  nonisolated(unsafe) var value: Value

  init(_ value: sending Value) { self.value = value }

  @usableFromInline
  override func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
