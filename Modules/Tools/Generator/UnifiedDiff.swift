/// A unified diff of two texts (line-based, three lines of context), for `--dry-run`.
enum UnifiedDiff {
  static func render(old: String, new: String, path: String) -> String {
    let a = old.components(separatedBy: "\n")
    let b = new.components(separatedBy: "\n")
    let (removed, inserted) = LineDiff.changes(from: a, to: b)
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

/// Which lines a change removes and inserts, for the diffs and merges of generated files.
enum LineDiff {
  /// The most lines, after the unchanged start and end are set aside, that the standard
  /// library's diff is asked to compare: it keeps a row per edit (memory grows with the
  /// square of the change), so a larger region is taken as replaced whole (a correct diff, if
  /// not the smallest).
  static let maximumRegion = 4000

  /// The offsets in `old` the change from `old` to `new` removes, and those in `new` it
  /// inserts.
  static func changes(from old: [String], to new: [String]) -> (
    removed: Set<Int>, inserted: Set<Int>
  ) {
    // The unchanged start and end, set aside first.
    var start = 0
    while start < old.count, start < new.count, old[start] == new[start] { start += 1 }
    var end = 0
    while end < old.count - start, end < new.count - start,
      old[old.count - 1 - end] == new[new.count - 1 - end]
    {
      end += 1
    }
    let oldRegion = old[start..<(old.count - end)]
    let newRegion = new[start..<(new.count - end)]
    if oldRegion.count + newRegion.count > maximumRegion {
      return (Set(oldRegion.indices), Set(newRegion.indices))
    }
    var removed = Set<Int>()
    var inserted = Set<Int>()
    for change in Array(newRegion).difference(from: Array(oldRegion)) {
      switch change {
      case .remove(let offset, _, _): removed.insert(start + offset)
      case .insert(let offset, _, _): inserted.insert(start + offset)
      }
    }
    return (removed, inserted)
  }
}
