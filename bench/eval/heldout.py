"""The offline evaluation's held-out tasks (issue 38): everyday jobs of
other shapes than the tuning tasks in tasks.py, written before any run of
the model on them and never tuned on. Same format as tasks.py (see its
docstring). Changes to the small-model profile (crates/profile) must not
be made to fit these tasks; a failure here is reported, not patched.

Shapes the tuning half does not hold: questions answered only by running
code (a function whose name says something else than what it does, an exit
code, a count of printed lines), in-place rewrites of a file (sort, delete
blank lines, prepend), renames across several files, reading a directory,
fixing a crash and a failing test in another project layout, counting and
searching with a twist (occurrences, line numbers, a number's maximum where
the word "largest" is not about files), and config edits in JSON and TOML.
"""

TRIPLE_PY = """def triple(n):
    return n * 3 + 1


print(triple(5))
"""

MYSTERY_PY = """def mystery(n):
    total = 0
    for i in range(1, n + 1):
        if n % i == 0:
            total += i
    return total
"""

CHECK_PY = """import os
import sys

missing = [name for name in ("config.ini", "data.csv") if not os.path.exists(name)]
if missing:
    print("missing:", ", ".join(missing))
    sys.exit(3)
print("all present")
"""

GEN_PY = """for i in range(3, 40, 4):
    print("item", i)
"""

CART_PY = """def get_total(prices):
    return sum(prices)


def get_total_with_tax(prices, rate):
    return get_total(prices) * (1 + rate)
"""

SHOP_MAIN_PY = """from cart import get_total

print(get_total([1, 2, 3]))
"""

STRINGS_PY = """def shout(text):
    return text.upper()
"""

TEST_STRINGS_PY = """import unittest
from strings import shout


class T(unittest.TestCase):
    def test_shout(self):
        self.assertEqual(shout("hi"), "HI!")

    def test_shout_empty(self):
        self.assertEqual(shout(""), "!")


if __name__ == "__main__":
    unittest.main()
"""

CIRCLE_PY = """def area(r):
    return math.pi * r * r


print(round(area(2), 2))
"""

ACCESS_LOG = "".join(
    f"10.0.0.{i} GET /page/{i} {status}\n"
    for i, status in enumerate([200, 404, 200, 500, 404, 404, 404, 301, 200, 404, 404, 200], start=1)
)

APP_PY = """import sys


def parse(argv):
    return argv[1:]


def run(args):
    for a in args:
        print(a)


def main():
    run(parse(sys.argv))


if __name__ == "__main__":
    main()
"""

HELDOUT = [
    # --- questions answered by running code --------------------------------
    dict(name="h-run-misnamed", files={"tri.py": TRIPLE_PY},
         prompt="What does python3 tri.py print? Run it to find out.",
         check=("answer", ["16"])),
    dict(name="h-call-function", files={"mystery.py": MYSTERY_PY},
         prompt="What does mystery(12) in mystery.py return? Run the code to find out.",
         check=("answer", ["28"])),
    dict(name="h-exit-code", files={"check.py": CHECK_PY, "config.ini": "[a]\n"},
         prompt="Run python3 check.py. What exit code does it end with?",
         check=("answer", ["3"])),
    dict(name="h-count-output", files={"gen.py": GEN_PY},
         prompt="How many lines does python3 gen.py print?",
         check=("answer", ["10"])),
    # --- in-place rewrites ------------------------------------------------------
    dict(name="h-sort-in-place", files={"names.txt": "mallory\nalice\ntrent\nbob\ncarol\n"},
         prompt="Sort the lines of names.txt alphabetically, in place.",
         check=("file", "names.txt", "alice\nbob\ncarol\nmallory\ntrent")),
    dict(name="h-drop-blank-lines", files={"notes.txt": "first\n\nsecond\n\n\nthird\n"},
         prompt="Remove the blank lines from notes.txt.",
         check=("file", "notes.txt", "first\nsecond\nthird")),
    dict(name="h-prepend-line", files={"run.sh": "echo start\necho done\n"},
         prompt="Add the line #!/bin/sh as the very first line of run.sh.",
         check=("file", "run.sh", "#!/bin/sh\necho start\necho done")),
    # --- renames across files -----------------------------------------------
    dict(name="h-rename-across-files", files={"shop/cart.py": CART_PY, "shop/main.py": SHOP_MAIN_PY},
         prompt="Rename the function get_total to compute_total everywhere in the shop directory "
                "(its definition and every use, in all files).",
         check=[("shell", "cd shop && python3 main.py | grep -qx 6"),
                ("file_has", "shop/cart.py", ["def compute_total(prices)", "compute_total(prices) * (1 + rate)",
                                              "def get_total_with_tax"]),
                ("file_has", "shop/main.py", ["from cart import compute_total"]),
                ("shell", "! grep -rn 'get_total(' shop")]),
    dict(name="h-move-into-dir", files={"report.csv": "a,b\n1,2\n"},
         prompt="Move report.csv into a new directory named archive.",
         check=[("absent", "report.csv"), ("file", "archive/report.csv", "a,b\n1,2")]),
    # --- reading a directory ---------------------------------------------------
    dict(name="h-list-dir", files={"templates/base.html": "<html></html>\n",
                                   "templates/login.html": "<form></form>\n",
                                   "templates/email.txt": "Hi\n", "app.py": "print(1)\n"},
         prompt="What files are in the templates directory?",
         check=("answer", ["base.html", "login.html", "email.txt"])),
    # --- fixing things that fail ------------------------------------------------
    dict(name="h-fix-failing-test", files={"strings.py": STRINGS_PY, "test_strings.py": TEST_STRINGS_PY},
         prompt="python3 test_strings.py fails. Fix strings.py so the tests pass.",
         check=[("shell", "python3 test_strings.py"), ("file", "test_strings.py", TEST_STRINGS_PY)]),
    dict(name="h-fix-crash", files={"circle.py": CIRCLE_PY},
         prompt="python3 circle.py crashes. Fix it so it prints the area.",
         check=("shell", "test \"$(python3 circle.py)\" = 12.57")),
    # --- counting and searching ---------------------------------------------------
    dict(name="h-count-404", files={"access.log": ACCESS_LOG},
         prompt="How many requests in access.log got the status 404?",
         check=("answer", ["6"])),
    dict(name="h-max-number", files={"numbers.txt": "17\n203\n45\n1999\n88\n310\n"},
         prompt="What is the largest number in numbers.txt?",
         check=("answer", ["1999"])),
    dict(name="h-line-number", files={"app.py": APP_PY},
         prompt="On which line of app.py is the function main defined?",
         check=("answer", ["13"])),
    dict(name="h-who-sleeps",
         files={"utils/net.py": "import time\n\n\ndef fetch(url):\n    time.sleep(1)\n    return url\n",
                "utils/fmt.py": "def fmt(x):\n    return str(x)\n",
                "utils/db.py": "def connect():\n    return None\n"},
         prompt="Which function in the utils directory calls time.sleep?",
         check=("answer", ["fetch"])),
    # --- config edits -------------------------------------------------------------
    dict(name="h-json-set", files={"settings.json": '{\n  "name": "svc",\n  "retries": 2,\n  "verbose": false\n}\n'},
         prompt="In settings.json, set retries to 5.",
         check=("shell", "python3 -c \"import json; d = json.load(open('settings.json')); "
                         "assert d == {'name': 'svc', 'retries': 5, 'verbose': False}, d\"")),
    dict(name="h-toml-enable", files={"features.toml": "[features]\nsearch = true\ndark_mode = false\nbeta = false\n"},
         prompt="Turn on the dark_mode feature in features.toml.",
         check=("file", "features.toml", "[features]\nsearch = true\ndark_mode = true\nbeta = false")),
]
