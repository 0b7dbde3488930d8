/// An HTTP request method.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The method's name as sent on the wire, such as `"GET"`.
  public let rawValue: String

  /// Creates a method from its name; it is uppercased.
  public init(rawValue: String) {
    self.rawValue = rawValue.uppercased()
  }

  /// `GET`: read a resource.
  public static let get = HTTPMethod(rawValue: "GET")
  /// `HEAD`: read a resource's headers.
  public static let head = HTTPMethod(rawValue: "HEAD")
  /// `POST`: create or act; not idempotent.
  public static let post = HTTPMethod(rawValue: "POST")
  /// `PUT`: replace a resource.
  public static let put = HTTPMethod(rawValue: "PUT")
  /// `PATCH`: change part of a resource; not idempotent.
  public static let patch = HTTPMethod(rawValue: "PATCH")
  /// `DELETE`: remove a resource.
  public static let delete = HTTPMethod(rawValue: "DELETE")
  /// `OPTIONS`: ask what a resource supports.
  public static let options = HTTPMethod(rawValue: "OPTIONS")

  /// Whether sending the request twice has the same effect as sending it once (RFC 9110
  /// section 9.2.2), which is what makes an automatic retry safe.
  public var isIdempotent: Bool {
    [Self.get, .head, .put, .delete, .options].contains(self)
  }

  /// The method's name.
  public var description: String { rawValue }
}
