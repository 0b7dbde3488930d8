import Testing
import TrellisCore

@Suite("Durations for people")
struct DurationReadableTests {
  @Test(arguments: [
    (Duration.zero, "0 ms"),
    (.milliseconds(250), "250 ms"),
    (.nanoseconds(912_167_947), "912 ms"),
    (.seconds(0.9121679476396164), "912 ms"),
    (.milliseconds(1500), "1.5 s"),
    (.milliseconds(1_049), "1 s"),
    (.seconds(59), "59 s"),
    (.seconds(125), "2 min 5 s"),
    (.seconds(3600), "1 h"),
    (.seconds(12_000), "3 h 20 min"),
    (.milliseconds(-250), "-250 ms"),
  ])
  func aDurationReadsAsPeopleWriteIt(duration: Duration, text: String) {
    #expect(duration.readable == text)
  }

  @Test func extremesDoNotTrap() {
    let longest = Duration(secondsComponent: .max, attosecondsComponent: 0)
    #expect(longest.readable.hasSuffix(" min") || longest.readable.hasSuffix(" h"))
    let most = Duration(secondsComponent: .min, attosecondsComponent: 0)
    #expect(most.readable.hasPrefix("-"))
  }
}
