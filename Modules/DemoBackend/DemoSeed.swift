import Foundation

/// The demo's starting data: three users, four projects with different milestones, tags,
/// members and permissions, and a few tasks. The README lists the accounts.
enum DemoSeed {
  /// A user with the password the backend checks.
  struct Account {
    var user: Wire.User
    var password: String
  }

  static let accounts: [Account] = [
    Account(
      user: Wire.User(
        id: 1, username: "alice", displayName: "Alice Kim", email: "alice@trellis.example",
        title: "iOS Engineer", bio: "Owns the mobile app."),
      password: "alice1234"),
    Account(
      user: Wire.User(
        id: 2, username: "bob", displayName: "Bob Lee", email: "bob@trellis.example",
        title: "Backend Engineer", bio: "Keeps the API up."),
      password: "bob1234"),
    Account(
      user: Wire.User(
        id: 3, username: "carol", displayName: "Carol Park", email: "carol@trellis.example",
        title: "Product Designer", bio: "Draws the screens."),
      password: "carol1234"),
  ]

  static let projects: [Wire.Project] = [
    Wire.Project(id: 1, key: "MOB", name: "Mobile App", color: "blue"),
    Wire.Project(id: 2, key: "API", name: "Backend", color: "green"),
    Wire.Project(id: 3, key: "DS", name: "Design System", color: "purple"),
    Wire.Project(id: 4, key: "LAB", name: "Secret Lab", color: "red"),
    Wire.Project(id: 5, key: "SUP", name: "Support", color: "orange"),
  ]

  /// Roles by project, then by user id: `admin` and `member` may create tasks, `viewer` may not.
  static let roles: [Int: [Int: String]] = [
    1: [1: "admin", 2: "member", 3: "member"],
    2: [1: "member", 2: "admin"],
    3: [1: "viewer", 3: "admin"],
    4: [2: "admin"],
    5: [1: "member", 2: "admin"],
  ]

  static let milestones: [Int: [Wire.Milestone]] = [
    1: [
      Wire.Milestone(id: 11, name: "v1.0 Beta", dueDate: "2026-12-15"),
      Wire.Milestone(id: 12, name: "v1.0 Launch", dueDate: "2027-01-31"),
    ],
    2: [
      Wire.Milestone(id: 21, name: "Q1 Hardening", dueDate: "2027-03-31"),
      Wire.Milestone(id: 22, name: "API v2", dueDate: nil),
    ],
    3: [
      Wire.Milestone(id: 31, name: "Tokens", dueDate: "2026-12-01"),
      Wire.Milestone(id: 32, name: "Components", dueDate: nil),
    ],
    4: [Wire.Milestone(id: 41, name: "Prototype", dueDate: nil)],
    5: [Wire.Milestone(id: 51, name: "Triage", dueDate: nil)],
  ]

  static let tags: [Int: [Wire.Tag]] = [
    1: [
      Wire.Tag(id: 101, name: "bug", color: "red"),
      Wire.Tag(id: 102, name: "feature", color: "green"),
      Wire.Tag(id: 103, name: "ios", color: "blue"),
    ],
    2: [
      Wire.Tag(id: 201, name: "infra", color: "gray"),
      Wire.Tag(id: 202, name: "perf", color: "orange"),
    ],
    3: [
      Wire.Tag(id: 301, name: "color", color: "purple"),
      Wire.Tag(id: 302, name: "typography", color: "black"),
    ],
    4: [Wire.Tag(id: 401, name: "secret", color: "red")],
    5: [Wire.Tag(id: 501, name: "customer", color: "orange")],
  ]

  static func tasks(createdAt date: Date) -> [Wire.Task] {
    [
      Wire.Task(
        id: 1, projectID: 1, title: "Crash when rotating the compose screen", body: "",
        milestoneID: 11, tagIDs: [101, 103], assigneeIDs: [1], attachments: [], createdBy: 2,
        createdAt: date),
      Wire.Task(
        id: 2, projectID: 1, title: "Offline mode for the task list", body: "", milestoneID: 12,
        tagIDs: [102], assigneeIDs: [1, 3], attachments: [], createdBy: 1, createdAt: date),
      Wire.Task(
        id: 3, projectID: 2, title: "Rate-limit the login endpoint", body: "", milestoneID: 21,
        tagIDs: [201], assigneeIDs: [2], attachments: [], createdBy: 2, createdAt: date),
      Wire.Task(
        id: 4, projectID: 3, title: "Dark mode palette", body: "", milestoneID: 31,
        tagIDs: [301], assigneeIDs: [3], attachments: [], createdBy: 3, createdAt: date),
    ] + supportTickets(createdAt: date)
  }

  /// The first id of the Support project's tickets; tasks created later get ids above them.
  static let firstTicketID = 1000

  /// The Support project's ``ticketCount`` tickets, every combination of an area and a
  /// symptom (ids from ``firstTicketID``): a list long enough to page through and to search
  /// (`export` matches 25 of them, `ipad` 10).
  static func supportTickets(createdAt date: Date) -> [Wire.Task] {
    let areas = [
      "Login", "Export", "Search", "Sync", "Billing", "Invites", "Upload", "Notifications",
      "Calendar", "Profile",
    ]
    let symptoms = [
      "fails on a slow network", "shows the wrong date", "is slow with many items",
      "loses the draft", "crashes on iPad", "ignores dark mode", "times out on cellular",
      "repeats the last action", "shows an empty screen", "needs a second tap",
      "forgets the sort order", "mislabels a button", "logs a password hint",
      "drops accents in names", "breaks with long titles", "duplicates items after retry",
      "hangs after sleep", "shows stale data", "rejects a valid email", "cuts off text",
      "rounds amounts wrongly", "skips the first item", "asks twice for permission",
      "leaves a spinner", "reorders by itself",
    ]
    return symptoms.indices.flatMap { symptom in
      areas.indices.map { area in
        let id = firstTicketID + symptom * areas.count + area
        return Wire.Task(
          id: id, projectID: 5, title: "\(areas[area]) \(symptoms[symptom])", body: "",
          milestoneID: 51, tagIDs: [501], assigneeIDs: [id % 2 == 0 ? 1 : 2], attachments: [],
          createdBy: 2, createdAt: date, isDone: id % 7 == 0)
      }
    }
  }

  /// How many tickets ``supportTickets(createdAt:)`` makes.
  static let ticketCount = 250
}
