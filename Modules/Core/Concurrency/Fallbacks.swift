import Foundation

/// Where Core uses an API newer than the package's floor (iOS 17, macOS 14), it has a fallback for
/// the systems below that API's; this switch makes Core take the fallbacks everywhere, so that
/// `swift test` on Linux (where every API exists) exercises the paths older iPhones and Macs run.
///
/// The APIs and their fallbacks:
///
/// | API (available from) | Used for | Fallback |
/// |---|---|---|
/// | `Mutex` (iOS 18, macOS 15) | ``Lock`` | an `NSLock` and the value beside it |
/// | `Atomic` (iOS 18, macOS 15) | ``AtomicFlag``, a reactor observer's "active" flag | a Boolean under an `NSLock` |
/// | `Task.immediate` (iOS 26, macOS 26) | starting a reactor's effects | a main-actor `Task`, started by the main actor after the current job (see `ImmediateTask`) |
///
/// Set `TRELLIS_FALLBACKS=1` in the environment of a test run to take the fallbacks; it is read
/// once, when first needed. `.ci/check-portability` runs the portable layers' tests that way.
public enum Fallbacks {
  /// Whether Core takes the fallbacks even where the newer APIs exist.
  public static let areForced: Bool =
    ProcessInfo.processInfo.environment["TRELLIS_FALLBACKS"] == "1"
}
