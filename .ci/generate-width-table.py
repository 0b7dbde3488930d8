#!/usr/bin/env python3
"""Prints the ranges of code points a terminal draws two columns wide (East Asian Width W or F,
which since Unicode 9 includes every Emoji_Presentation character; unassigned code points only in
the ideograph planes), as Swift source for
Modules/Front/Kit/CharacterWidth.swift. Run: python3 .ci/generate-width-table.py"""
import sys
import unicodedata

ranges = []
start = None
for code in range(0x110000):
    character = chr(code)
    # Unassigned code points are wide only in the ideograph planes (2 and 3), by default.
    assigned = unicodedata.category(character) != "Cn"
    wide = (assigned and unicodedata.east_asian_width(character) in ("W", "F")) or (
        0x20000 <= code <= 0x2FFFD or 0x30000 <= code <= 0x3FFFD)
    if wide and start is None:
        start = code
    elif not wide and start is not None:
        ranges.append((start, code - 1))
        start = None
if start is not None:
    ranges.append((start, 0x10FFFF))

print(f"  // Unicode {unicodedata.unidata_version}, {len(ranges)} ranges"
      " (.ci/generate-width-table.py).")
print("  static let wideRanges: [ClosedRange<UInt32>] = [")
line = "   "
for low, high in ranges:
    item = f" 0x{low:X}...0x{high:X},"
    if len(line) + len(item) > 98:
        print(line)
        line = "   "
    line += item
print(line)
print("  ]")
