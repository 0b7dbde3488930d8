/// A unified diff of two texts (line-based, three lines of context), for `--dry-run`.
enum UnifiedDiff {
  static func render(old: String, new: String, path: String) -> String {
    let a = old.components(separatedBy: "\n")
    let b = new.components(separatedBy: "\n")
    var common = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in stride(from: a.count - 1, through: 0, by: -1) {
      for j in stride(from: b.count - 1, through: 0, by: -1) {
        common[i][j] =
          a[i] == b[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
      }
    }
    // Each line of the edit script: (" ", "-", "+"), text, old line number, new line number.
    var script: [(String, String, Int, Int)] = []
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
      if i < a.count, j < b.count, a[i] == b[j] {
        script.append((" ", a[i], i, j))
        i += 1
        j += 1
      } else if j < b.count, i == a.count || common[i][j + 1] >= common[i + 1][j] {
        script.append(("+", b[j], i, j))
        j += 1
      } else {
        script.append(("-", a[i], i, j))
        i += 1
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
