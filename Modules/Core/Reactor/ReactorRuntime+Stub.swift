/// Stub mode: `mutate` and `reduce` stop running, the stub's state is what observers see.
extension ReactorRuntime {
  func enableStub(reactor: R) -> ReactorStub<R> {
    if let stub { return stub }
    let stub = ReactorStub<R>(runtime: self, state: currentState(of: reactor))
    ensuredExtras.stub = stub
    cancelEverything()
    return stub
  }

  func setStubState(_ newState: R.State) {
    show(newState)
  }

  func emitStubEvent(_ event: R.Event) {
    notifyEventObservers(event)
  }
}
