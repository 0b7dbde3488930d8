/// One of a reactor's three streams (actions, mutations, states) as its `transform` hooks see
/// it: elements can be mapped, filtered, observed, and outside sources merged in.
///
/// This is ReactorKit's `transform(mutation: Observable<Mutation>) -> Observable<Mutation>`
/// without RxSwift. The hook runs once, when the reactor starts; merged sources are iterated
/// by tasks the reactor owns and cancels when it stops or is released.
///
/// ```swift
/// func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation> {
///   mutation.merge(sessionService.session.changes) { state in
///     state == .expired ? .sessionExpired : nil
///   }
/// }
/// ```
///
/// Operators apply to what is upstream of them: in `stream.map(f).merge(source)`, `f` does
/// not see the elements of `source`; in `stream.merge(source).map(f)` it does.
@MainActor
public struct ReactorStream<Element> {
  @usableFromInline typealias Transform = @MainActor (Element) -> Element?

  struct Source {
    /// Iterates the source, emitting its elements; an error that ends it goes to `report`.
    var iterate:
      @MainActor @Sendable (
        _ emit: @escaping @MainActor (Element) -> Void,
        _ report: @escaping @MainActor (any Error) -> Void
      ) async -> Void
    var transform: Transform?
  }

  /// Applied to the reactor's own elements; `nil` when the stream is untouched.
  var transform: Transform?
  var sources: [Source] = []

  init() {}

  /// The stream with each element replaced by `transform(element)`.
  public func map(_ transform: @escaping @MainActor (Element) -> Element) -> Self {
    compactMap { transform($0) }
  }

  /// The stream with elements for which `isIncluded` returns `false` dropped.
  public func filter(_ isIncluded: @escaping @MainActor (Element) -> Bool) -> Self {
    compactMap { isIncluded($0) ? $0 : nil }
  }

  /// The stream with each element replaced by `transform(element)`, or dropped when `nil`.
  public func compactMap(_ transform: @escaping @MainActor (Element) -> Element?) -> Self {
    var copy = self
    copy.transform = Self.compose(self.transform, transform)
    copy.sources = sources.map { source in
      var source = source
      source.transform = Self.compose(source.transform, transform)
      return source
    }
    return copy
  }

  /// The stream, calling `body` with each element as it passes (for logging and debugging).
  public func onEach(_ body: @escaping @MainActor (Element) -> Void) -> Self {
    compactMap { element in
      body(element)
      return element
    }
  }

  /// The stream with the elements of `sequence` merged in, for as long as the reactor runs.
  /// An error ending `sequence` is logged by the reactor's `logger`.
  public func merge<S: AsyncSequence & Sendable>(_ sequence: S) -> Self
  where S.Element == Element {
    merge(sequence) { $0 }
  }

  /// The stream with the elements of `sequence`, converted by `transform` (`nil` drops one),
  /// merged in for as long as the reactor runs. An error ending `sequence` is logged by the
  /// reactor's `logger`.
  public func merge<S: AsyncSequence & Sendable>(
    _ sequence: S,
    _ transform: @escaping @MainActor @Sendable (S.Element) -> Element?
  ) -> Self {
    var copy = self
    copy.sources.append(
      Source(
        iterate: { emit, report in
          do {
            for try await element in sequence {
              if let converted = transform(element) { emit(converted) }
            }
          } catch {
            // Ended by the reactor (stopped or released): not an error.
            if !Task.isCancelled { report(error) }
          }
        },
        transform: nil))
    return copy
  }

  private static func compose(_ first: Transform?, _ second: @escaping Transform) -> Transform {
    guard let first else { return second }
    return { element in first(element).flatMap(second) }
  }
}
