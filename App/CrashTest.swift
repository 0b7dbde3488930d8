// A test hook, compiled into debug builds only (`TRELLIS_TEST_HOOKS`, defined for the debug
// configuration in Package.swift): a release build, the one that ships, has none of it, and
// `.ci/run` checks that its binary does not mention `TRELLIS_TEST_CRASH`.
#if TRELLIS_TEST_HOOKS
  import Foundation

  /// A crash on purpose, for `.ci/check-terminal`: it proves that the terminal is restored even
  /// when the app dies of a stack overflow or a trap. Only the environment variable
  /// `TRELLIS_TEST_CRASH` (`stack-overflow` or `trap`) asks for it, in interactive mode, in a
  /// debug build.
  @MainActor
  enum CrashTest {
    /// Crashes the way `kind` names, shortly after the first frame is drawn.
    static func schedule(_ kind: String) {
      Task { @MainActor in
        try? await Task.sleep(for: .milliseconds(500))
        switch kind {
        case "stack-overflow": _ = recurse(0)
        default: fatalError("TRELLIS_TEST_CRASH=\(kind)")
        }
      }
    }

    /// Recursion that no optimiser turns into a loop: each frame keeps a buffer alive across the
    /// call.
    @inline(never)
    private static func recurse(_ depth: Int) -> Int {
      // Never reached: the stack runs out long before. It only tells the compiler the
      // recursion is meant to end.
      guard depth < Int.max - 1 else { return depth }
      var frame = [Int](repeating: depth, count: 64)
      frame[depth % 64] = recurse(depth + 1)
      return frame.reduce(0, &+)
    }
  }
#endif
