import Testing
import TrellisCore

extension Trait where Self == ConditionTrait {
  /// For a test that relies on an effect's first part running within the `send` that started it
  /// (`Task.immediate`): skipped when the run takes Core's fallbacks (`TRELLIS_FALLBACKS=1`).
  static var startsEffectsWithinSend: Self {
    .enabled(if: !Fallbacks.areForced, "relies on Task.immediate; see CoreTests' FallbackTests")
  }
}
