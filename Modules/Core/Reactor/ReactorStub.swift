/// Puts a reactor in stub mode for view tests, like ReactorKit's `Stub`: `mutate` and `reduce`
/// no longer run, the test sets the state the view renders and reads the actions it sent.
///
/// ```swift
/// let reactor = LoginViewReactor(serviceProvider: FakeServices())
/// let stub = reactor.enableStub()
/// let view = LoginViewController(reactor: reactor)
/// stub.state.isLoading = true          // the view renders a spinner
/// view.handle(.tap("Sign in"))
/// #expect(stub.actions.last == .signIn)
/// ```
@MainActor
public final class ReactorStub<R: ReactorProtocol> {
  private weak var runtime: ReactorRuntime<R>?

  /// The state observers see. Setting it delivers it to every state observer.
  public var state: R.State {
    didSet { runtime?.setStubState(state) }
  }

  /// Every action sent to the reactor since the stub was enabled, oldest first.
  public private(set) var actions: [R.Action] = []

  init(runtime: ReactorRuntime<R>, state: R.State) {
    self.runtime = runtime
    self.state = state
  }

  /// Delivers `event` to the reactor's event observers, as if an effect had emitted it.
  public func emit(_ event: R.Event) {
    runtime?.emitStubEvent(event)
  }

  @usableFromInline
  func record(_ action: R.Action) {
    actions.append(action)
  }
}
