import Core

Logger(category: "App").info("Trellis starting")
