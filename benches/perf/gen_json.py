#!/usr/bin/env python3
"""A JSON document of about MB megabytes for the json rows (issue 34 row 5):
{"meta": {...}, "items": [records...], "tail": {...}} with nesting, escapes,
unicode, duplicate keys, long strings (under the 1,000,000-value
budget of a whole parse), keys holding '/' and '~', numbers as written (1.50,
-0, 1e5, 2^64), and a secret-looking member. Deterministic (seed 1).

    gen_json.py MB OUT
"""
import json, random, sys

mb, out = float(sys.argv[1]), sys.argv[2]
r = random.Random(1)
words = "alpha beta gamma delta \u00e9t\u00e9 \u65e5\u672c \U0001F600 tab\there quote\"s back\\slash".split(" ")
kinds = ["red", "green", "blue", "cyan"]
with open(out, "w", encoding="utf-8") as f:
    f.write('{"meta": {"name": "bench", "a/b": 1, "m~n": [2, 3], "esc": "line\\nnext \\u00e9 \\ud83d\\ude00 \\"q\\"",')
    f.write(' "k\\"ey": true, "nums": [1.50, -0, 1e5, 18446744073709551616, -2.5E-3, 0],')
    f.write(' "dup": 1, "password": "hunter2-s3cret-value", "dup": {"x": [null, false]}},\n "items": [\n')
    n, size, limit = 0, 0, int(mb * 1e6)
    while size < limit:
        rec = {
            "id": n,
            "kind": r.choice(kinds),
            "n": r.randint(-10**6, 10**6) + n * 10**7,
            "score": round(r.random() * 100, r.randint(0, 4)),
            "name": " ".join(r.choice(words) for _ in range(r.randint(1, 4))),
            "tags": [r.choice(words) for _ in range(r.randint(0, 3))],
            "nested": {"deep": {"deeper": [n % 7, {"leaf": n % 3 == 0}]}},
            "text": " ".join(r.choice(words) for _ in range(r.randint(20, 60))),
        }
        s = ("  " if n == 0 else ",\n  ") + json.dumps(rec, ensure_ascii=n % 2 == 0)
        f.write(s)
        size += len(s.encode())
        n += 1
    f.write('\n ],\n "tail": {"count": %d, "last": "end"}}\n' % n)
