"""The offline evaluation's tasks (issue 17): small everyday jobs a user
asks a coding agent, each with the files it starts from and a check.

A task is a dict:
  name    short id
  files   {relative path: content} written into a fresh scratch dir
  prompt  what the user types (`orbit -p PROMPT`)
  check   one of
            ("answer", [substrings])   the final answer contains every substring (case-insensitive)
            ("answer_not", [subs])     ... and none of these
            ("file", path, content)    the file's content equals this (trailing newline ignored)
            ("file_has", path, [subs]) the file exists and contains every substring
            ("file_lacks", path, [subs]) the file exists and contains none of these
            ("absent", path)           the file no longer exists
            ("shell", cmd)             `sh -c cmd` in the scratch dir exits 0
          or a list of those (all must hold).
"""

MATH_PY = """def add(a, b):
    return a + b


def mul(a, b):
    return a * b
"""

TEST_MATH_PY = """import unittest
from mathlib import add, mul


class T(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_mul(self):
        self.assertEqual(mul(2, 3), 6)


if __name__ == "__main__":
    unittest.main()
"""

BUGGY_PY = """def is_even(n):
    return n % 2 == 1
"""

TASKS = [
    # --- reading and answering -------------------------------------------
    dict(name="magic", files={"config.txt": "NAME=orbit\nMAGIC=48213\nMODE=test\n"},
         prompt="What is the value of MAGIC in config.txt?", check=("answer", ["48213"])),
    dict(name="count-lines", files={"data.txt": "".join(f"row {i}\n" for i in range(1, 43))},
         prompt="How many lines does data.txt have?", check=("answer", ["42"])),
    dict(name="port", files={"server.yaml": "server:\n  host: 0.0.0.0\n  port: 8731\n  workers: 4\n"},
         prompt="Which port does server.yaml configure?", check=("answer", ["8731"])),
    dict(name="which-file-defines",
         files={"src/util.py": "def slugify(s):\n    return s.lower()\n",
                "src/dates.py": "import time\n\ndef parse_date(s):\n    return time.strptime(s, '%Y-%m-%d')\n",
                "src/main.py": "from dates import parse_date\nprint(parse_date('2024-01-02'))\n"},
         prompt="Which file defines the function parse_date?", check=("answer", ["dates.py"])),
    dict(name="count-py-files",
         files={"a.py": "", "b.py": "", "pkg/c.py": "", "pkg/d.py": "", "README.md": "# x\n",
                "notes.txt": "n\n", "pkg/data.json": "{}\n"},
         prompt="How many Python (.py) files are there in this directory tree?", check=("answer", ["4"])),
    dict(name="version", files={"Cargo.toml": '[package]\nname = "demo"\nversion = "3.14.1"\nedition = "2021"\n'},
         prompt="What version is the package in Cargo.toml?", check=("answer", ["3.14.1"])),
    dict(name="todo-count",
         files={"app.js": "// TODO: a\nlet x = 1; // TODO: b\nfunction f() {}\n// TODO: c\n"},
         prompt="How many TODO comments are in app.js?", check=("answer", ["3"])),
    dict(name="largest-file",
         files={"small.txt": "a\n", "big.txt": "x" * 5000 + "\n", "medium.txt": "y" * 300 + "\n"},
         prompt="Which .txt file in this directory is the largest?", check=("answer", ["big.txt"])),
    dict(name="function-args",
         files={"calc.py": "def area(width, height):\n    return width * height\n"},
         prompt="What are the parameter names of the function area in calc.py?",
         check=("answer", ["width", "height"])),
    dict(name="json-field", files={"package.json": '{\n  "name": "web",\n  "license": "Apache-2.0",\n  "version": "1.0.0"\n}\n'},
         prompt="What license does package.json declare?", check=("answer", ["Apache-2.0"])),
    # --- editing -----------------------------------------------------------
    dict(name="rename-function", files={"funcs.py": "def foo(x):\n    return x * 2\n\nprint(foo(3))\n"},
         prompt="Rename the function foo to double in funcs.py (update its call too).",
         check=[("file_has", "funcs.py", ["def double(x)", "print(double(3))"]), ("file_lacks", "funcs.py", ["foo"])]),
    dict(name="fix-bug", files={"even.py": BUGGY_PY},
         prompt="even.py has a bug: is_even returns the wrong result. Fix it.",
         check=("shell", "python3 -c 'import even; assert even.is_even(4) and not even.is_even(3)'")),
    dict(name="create-file", files={},
         prompt="Create a file hello.txt containing exactly the line: Hello, orbit!",
         check=("file", "hello.txt", "Hello, orbit!")),
    dict(name="append-config", files={"settings.ini": "[main]\ndebug=false\n"},
         prompt="Append the line timeout=30 to the end of settings.ini.",
         check=[("file_has", "settings.ini", ["[main]", "debug=false", "timeout=30"])]),
    dict(name="delete-file", files={"old.log": "stale\n", "keep.txt": "keep\n"},
         prompt="Delete the file old.log.", check=[("absent", "old.log"), ("file", "keep.txt", "keep")]),
    dict(name="replace-word", files={"story.txt": "The cat sat.\nA cat ran.\nNo cat here? cat!\n"},
         prompt="Replace every occurrence of the word cat with dog in story.txt.",
         check=[("file", "story.txt", "The dog sat.\nA dog ran.\nNo dog here? dog!"), ]),
    dict(name="change-value", files={"config.txt": "NAME=orbit\nMAGIC=48213\nMODE=test\n"},
         prompt="In config.txt, change MODE from test to prod.",
         check=("file", "config.txt", "NAME=orbit\nMAGIC=48213\nMODE=prod")),
    dict(name="add-function", files={"mathlib.py": MATH_PY},
         prompt="Add a function sub(a, b) that returns a - b to mathlib.py.",
         check=("shell", "python3 -c 'import mathlib; assert mathlib.sub(5, 3) == 2 and mathlib.add(1, 1) == 2'")),
    dict(name="add-gitignore-line", files={".gitignore": "target/\n"},
         prompt="Add *.log to .gitignore.", check=("file_has", ".gitignore", ["target/", "*.log"])),
    dict(name="write-script", files={},
         prompt="Write a Python script sum.py that prints the sum of the numbers 1 to 100.",
         check=("shell", "test \"$(python3 sum.py)\" = 5050")),
    dict(name="fix-typo", files={"README.md": "# Projcet\n\nThis projcet does things.\n"},
         prompt="Fix the spelling mistake 'projcet' (it should be 'project') everywhere in README.md.",
         check=[("file_has", "README.md", ["Project", "This project does things."]),
                ("file_lacks", "README.md", ["rojcet"])]),
    dict(name="uncomment", files={"opts.conf": "a=1\n# b=2\nc=3\n"},
         prompt="In opts.conf, uncomment the line b=2.",
         check=("file", "opts.conf", "a=1\nb=2\nc=3")),
    # --- running things ----------------------------------------------------
    dict(name="run-tests", files={"mathlib.py": MATH_PY.replace("a * b", "a * b + 1"), "test_math.py": TEST_MATH_PY},
         prompt="Run python3 test_math.py and tell me which test fails.", check=("answer", ["test_mul"])),
    # Long outputs (≈ 2,000 and ≈ 3,000 tokens). long-run asks no question:
    # the 1.5B model then answers from the prompt's worked examples instead
    # of the output ("The log level in app.cfg is debug."; without that
    # example, "Ran 101 tests in 0.001s OK"), a known failure kept here so
    # the evaluation tracks it (docs/PERFORMANCE.md).
    dict(name="long-log",
         files={"build.sh": "i=1\nwhile [ $i -le 200 ]; do echo \"compiling module_$i ... ok\"; i=$((i+1)); done\n"
                            "echo 'BUILD OK: 200 modules, 7 warnings'\n"},
         prompt="Run sh build.sh and tell me how many warnings the build reports.", check=("answer", ["7"])),
    dict(name="long-run",
         files={"step.sh": "n=$1\ni=1\nwhile [ $i -le 220 ]; do echo \"step $n log line $i: checked module_$i ok\"; i=$((i+1)); done\n"
                           "echo \"step $n finished.\"\n"},
         prompt="Run sh step.sh 1 with the Bash tool.", check=("answer", ["finish"])),
    dict(name="run-script", files={"gen.py": "print(sum(i * i for i in range(10)))\n"},
         prompt="Run gen.py with python3 and tell me what it prints.", check=("answer", ["285"])),
    dict(name="make-dir", files={},
         prompt="Create a directory named build with an empty file .keep inside it.",
         check=("shell", "test -d build && test -f build/.keep")),
    dict(name="fix-and-test", files={"mathlib.py": MATH_PY.replace("a + b", "a - b"), "test_math.py": TEST_MATH_PY},
         prompt="The tests in test_math.py fail. Fix mathlib.py so that python3 test_math.py passes.",
         check=("shell", "python3 test_math.py")),
    dict(name="word-count", files={"poem.txt": "one two three\nfour five\nsix\n"},
         prompt="How many words are in poem.txt?", check=("answer", ["6"])),
    dict(name="find-string",
         files={"a/x.txt": "nothing\n", "b/y.txt": "the secret word is kumquat\n", "c/z.txt": "none\n"},
         prompt="Which file contains the word kumquat?", check=("answer", ["y.txt"])),
    dict(name="copy-file", files={"orig.txt": "payload 77\n"},
         prompt="Copy orig.txt to backup.txt.",
         check=[("file", "backup.txt", "payload 77"), ("file", "orig.txt", "payload 77")]),
    dict(name="rename-file", files={"draft.md": "# Draft\n"},
         prompt="Rename draft.md to final.md.",
         check=[("absent", "draft.md"), ("file", "final.md", "# Draft")]),
    dict(name="env-value", files={".env.example": "DB_HOST=localhost\nDB_PORT=5433\n"},
         prompt="What DB_PORT does .env.example set?", check=("answer", ["5433"])),
    dict(name="list-functions",
         files={"lib.py": "def alpha():\n    pass\n\ndef beta():\n    pass\n\ndef gamma():\n    pass\n"},
         prompt="List the names of the functions defined in lib.py.",
         check=("answer", ["alpha", "beta", "gamma"])),
    # --- a change whose printed form tempts (issue 38, session 6): a
    # command that only prints shows the right text, and the file must
    # still be changed. Added after the held-out half's run of 2026-12-07;
    # tuning tasks, like every task above.
] + [
    dict(name=name, files={path: before}, prompt=prompt, check=("file", path, after))
    for name, path, before, prompt, after in [
        ("dedupe-lines", "colors.txt", "red\nblue\nred\ngreen\nblue\n",
         "Remove the repeated lines from colors.txt, keeping the first of each.", "red\nblue\ngreen"),
        ("upper-lines", "shout.txt", "hello\nquiet please\n",
         "Make every line of shout.txt uppercase.", "HELLO\nQUIET PLEASE"),
        ("reverse-lines", "steps.txt", "one\ntwo\nthree\n",
         "Reverse the order of the lines in steps.txt.", "three\ntwo\none"),
        ("strip-trailing", "list.txt", "apple   \npear \nplum\n",
         "Strip the trailing spaces from every line of list.txt.", "apple\npear\nplum"),
    ]
] + [
    dict(name="json-bump", files={"app.json": '{\n  "name": "app",\n  "workers": 2\n}\n'},
         prompt="Set workers to 8 in app.json.",
         check=("shell", "python3 -c 'import json; d = json.load(open(\"app.json\")); assert d == {\"name\": \"app\", \"workers\": 8}'")),
    # --- a question answered by running a function (issue 38, session
    # 6): the file only defines it, so running the file prints nothing.
    dict(name="call-silent", files={"calc.py": "def mix(n):\n    return sum(i * i for i in range(n)) % 97\n"},
         prompt="What does mix(30) in calc.py return?", check=("answer", ["19"])),
    dict(name="format-id", files={"ids.py": "def fmt_id(n):\n    return f'ID-{n:05d}-{n % 7}'\n"},
         prompt="What does fmt_id(45) from ids.py return?", check=("answer", ["ID-00045-3"])),
    # --- session 8: everyday classes the issue and the first held-out
    # set's results named (lines deleted by a match, a line put first, a
    # rename that must spare longer names, one change across a tree, an
    # answer computed from a data file, a program's output). Tuning tasks.
    dict(name="drop-todo-lines", files={"notes.txt": "keep a\nTODO fix b\nkeep c\nTODO d\n"},
         prompt="Delete every line that contains TODO from notes.txt.",
         check=("file", "notes.txt", "keep a\nkeep c")),
    dict(name="header-line", files={"conf.ini": "[main]\nx=1\n"},
         prompt="Put the line ; generated as the very first line of conf.ini.",
         check=("file", "conf.ini", "; generated\n[main]\nx=1")),
    dict(name="rename-var-word",
         files={"stats.py": "cnt = 0\ncnt_max = 9\nfor i in range(3):\n    cnt += i\nprint(cnt, cnt_max)\n"},
         prompt="Rename the variable cnt to count in stats.py.",
         check=("file", "stats.py", "count = 0\ncnt_max = 9\nfor i in range(3):\n    count += i\nprint(count, cnt_max)")),
    dict(name="replace-in-tree",
         files={"data/a.txt": "color: red\n", "data/sub/b.txt": "red and red\n", "data/c.md": "red\n"},
         prompt="Replace red with green in every .txt file under data/.",
         check=[("file", "data/a.txt", "color: green"), ("file", "data/sub/b.txt", "green and green"),
                ("file", "data/c.md", "red")]),
    dict(name="column-total", files={"scores.csv": "name,score\nann,17\nbo,25\ncy,8\n"},
         prompt="Add up the score column of scores.csv. What is the total?", check=("answer", ["50"])),
    dict(name="cheapest-item",
         files={"prices.json": '[{"item": "tea", "price": 4.5}, {"item": "cake", "price": 3.2}, {"item": "pie", "price": 6}]\n'},
         prompt="Which item in prices.json is the cheapest?", check=("answer", ["cake"])),
    dict(name="what-prints", files={"banner.py": "parts = ['v', str(2 * 21)]\nprint('-'.join(parts))\n"},
         prompt="What does python3 banner.py print?", check=("answer", ["v-42"])),
]
