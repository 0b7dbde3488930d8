/// A line-based three-way merge, as `git merge-file` does: the changes from `base` to `ours`
/// (the team's edit) and from `base` to `theirs` (the new generated text) both applied, or the
/// places where they change the same lines differently.
enum ThreeWayMerge {
  /// Lines both sides changed differently: what each made of `base`'s lines there.
  struct Conflict: Equatable {
    /// The first line of the region in `base` (1-based).
    var baseLine: Int
    /// The region as it was generated before.
    var base: [String]
    /// The team's version.
    var ours: [String]
    /// The new generated version.
    var theirs: [String]
  }

  /// The merged text, or the conflicts (none merged).
  enum Outcome: Equatable {
    case merged(String)
    case conflicts([Conflict])
  }

  /// Merges `ours` and `theirs`, both made from `base`.
  static func merge(base: String, ours: String, theirs: String) -> Outcome {
    let original = base.components(separatedBy: "\n")
    let mine = ours.components(separatedBy: "\n")
    let new = theirs.components(separatedBy: "\n")
    let toMine = matches(from: original, to: mine)
    let toNew = matches(from: original, to: new)
    var merged: [String] = []
    var conflicts: [Conflict] = []
    var (i, a, b) = (0, 0, 0)
    while i < original.count || a < mine.count || b < new.count {
      // A line kept by both sides where both are: it is kept.
      if i < original.count, toMine[i] == a, toNew[i] == b {
        merged.append(original[i])
        i += 1
        a += 1
        b += 1
        continue
      }
      // The next line both sides kept ends this region of changes.
      var end = i
      while end < original.count, toMine[end] == nil || toNew[end] == nil { end += 1 }
      let endMine = end < original.count ? toMine[end] ?? mine.count : mine.count
      let endNew = end < original.count ? toNew[end] ?? new.count : new.count
      let region = Array(original[i..<end])
      let regionMine = Array(mine[a..<endMine])
      let regionNew = Array(new[b..<endNew])
      if regionMine == regionNew || regionNew == region {
        merged += regionMine  // the same change, or only the team's
      } else if regionMine == region {
        merged += regionNew  // only the generator's
      } else {
        conflicts.append(
          Conflict(baseLine: i + 1, base: region, ours: regionMine, theirs: regionNew))
      }
      (i, a, b) = (end, endMine, endNew)
    }
    return conflicts.isEmpty ? .merged(merged.joined(separator: "\n")) : .conflicts(conflicts)
  }

  /// For each line of `old`, the index of the line of `new` it is kept as, or `nil` when the
  /// change removed it (``LineDiff``).
  private static func matches(from old: [String], to new: [String]) -> [Int?] {
    let (removed, inserted) = LineDiff.changes(from: old, to: new)
    var result: [Int?] = Array(repeating: nil, count: old.count)
    var j = 0
    for i in old.indices where !removed.contains(i) {
      while inserted.contains(j) { j += 1 }
      result[i] = j
      j += 1
    }
    return result
  }
}
