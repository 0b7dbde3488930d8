import Foundation
import Testing
import TrellisCoreTesting

@testable import TrellisNetwork

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How `URLSession`'s errors read to the layers above: "offline" is everything that ends when
/// the network comes back, including the radio's own refusals on Apple platforms (cellular
/// data off for the app, roaming off, a call holding the only radio).
@Suite("URLSessionTransport: what an NSURLError means", .capturesLogs)
struct URLErrorClassificationTests {
  @Test(arguments: [
    NSURLErrorNotConnectedToInternet, NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost,
    NSURLErrorDNSLookupFailed, NSURLErrorDataNotAllowed, NSURLErrorInternationalRoamingOff,
    NSURLErrorCallIsActive,
  ])
  func noNetworkIsCannotConnect(code: Int) {
    let error = NSError(domain: NSURLErrorDomain, code: code)
    #expect(URLSessionTransport.failure(from: error).kind == .cannotConnect)
    #expect(URLSessionTransport.failure(from: error).isTemporary)
  }

  @Test func theOthersKeepTheirMeaning() {
    #expect(
      URLSessionTransport.failure(from: NSError(domain: NSURLErrorDomain, code: NSURLErrorTimedOut))
        .kind == .timedOut)
    #expect(
      URLSessionTransport.failure(
        from: NSError(domain: NSURLErrorDomain, code: NSURLErrorNetworkConnectionLost)
      ).kind == .connectionLost)
    #expect(
      URLSessionTransport.failure(
        from: NSError(domain: NSURLErrorDomain, code: NSURLErrorCancelled)
      )
      .kind == .cancelled)
  }
}
