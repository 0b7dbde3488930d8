import Foundation

/// How the fakes page a list as the demo backend does: newest (highest id) first, only items
/// whose titles contain every word of the query (ignoring case), `size` at a time, the cursor
/// being the last id of the previous page.
public enum FakePaging {
  /// The page of `items` after `cursor`, and the cursor of the page after it (`nil`: the last).
  public static func page<Item>(
    _ items: [Item], id: (Item) -> Int, title: (Item) -> String, matching query: String,
    after cursor: String?, size: Int
  ) -> (items: [Item], nextCursor: String?) {
    let words = query.lowercased().split(whereSeparator: \.isWhitespace)
    let below = cursor.flatMap { Int($0) } ?? .max
    let matching = items.filter { item in
      id(item) < below && words.allSatisfy { title(item).lowercased().contains($0) }
    }
    .sorted { id($0) > id($1) }
    let page = Array(matching.prefix(size))
    let next = matching.count > page.count ? page.last.map { String(id($0)) } : nil
    return (page, next)
  }
}
