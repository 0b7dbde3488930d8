/// A unified diff of two texts (line-based, three lines of context), for `--dry-run`.
enum UnifiedDiff {
  static func render(old: String, new: String, path: String) -> String {
    let a = old.components(separatedBy: "\n")
    let b = new.components(separatedBy: "\n")
    // The edit script from the standard library's diff (Myers: time and memory grow with the
    // size of the change, not with the product of the files' lengths, so an edited file of
    // 80,000 lines diffs in moments).
    let difference = b.difference(from: a)
    var removed = Set<Int>()
    var inserted = Set<Int>()
    for change in difference {
      switch change {
      case .remove(let offset, _, _): removed.insert(offset)
      case .insert(let offset, _, _): inserted.insert(offset)
      }
    }
    // Each line of the edit script: (" ", "-", "+"), text, old line number, new line number.
    var script: [(String, String, Int, Int)] = []
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
      if i < a.count, removed.contains(i) {
        script.append(("-", a[i], i, j))
        i += 1
      } else if j < b.count, inserted.contains(j) {
        script.append(("+", b[j], i, j))
        j += 1
      } else if i < a.count, j < b.count {
        script.append((" ", a[i], i, j))
        i += 1
        j += 1
      } else {
        break  // (never: every line is removed, inserted or kept)
      }
    }
    var output = ["--- a/\(path)", "+++ b/\(path)"]
    let changed = script.indices.filter { script[$0].0 != " " }
    var index = 0
    while index < changed.count {
      let start = max(0, changed[index] - 3)
      var end = min(script.count - 1, changed[index] + 3)
      while index + 1 < changed.count, changed[index + 1] - 3 <= end + 1 {
        index += 1
        end = min(script.count - 1, changed[index] + 3)
      }
      let hunk = script[start...end]
      let oldCount = hunk.filter { $0.0 != "+" }.count
      let newCount = hunk.filter { $0.0 != "-" }.count
      output.append("@@ -\(script[start].2 + 1),\(oldCount) +\(script[start].3 + 1),\(newCount) @@")
      output += hunk.map { $0.0 + $0.1 }
      index += 1
    }
    return output.joined(separator: "\n")
  }
}
