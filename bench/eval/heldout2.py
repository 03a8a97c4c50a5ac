"""The offline evaluation's second held-out set (issue 38, session 8).

Written on 2026-12-07 before any prompt or profile change of that session
was tried, by someone who had not seen a transcript of these tasks; never
tuned on. The first held-out set (heldout.py) became partly known: the
classes of its failures were read from its results and named in closing
notes, so a change aimed at those classes is no longer measured cleanly
by it. This set is the clean measure from session 8 on. Same format as
tasks.py (see its docstring). A failure here is reported, not patched.

Shapes: sums and counts over data files (CSV, logs, a directory tree),
answers read from build and dependency files, answers that need a program
run, deletions of a line and of a whole function, value edits in YAML and
.env, a rename in code that holds a longer name beginning with the same
letters, a prepend, a case change of a whole file written back, a
replacement across several files, and a syntax error to fix.
"""

SALES_CSV = "date,item,amount\n2026-01-02,pen,12\n2026-01-03,ink,30\n2026-01-05,pad,7\n2026-01-09,pen,12\n2026-01-11,box,41\n"

SERVER_LOG = "".join(
    f"2026-03-0{d} 10:{m:02d} {'ERROR' if (d * 7 + m) % 5 == 0 else 'INFO'} request {d}{m}\n"
    for d in range(1, 5)
    for m in range(0, 60, 6)
)
SERVER_LOG_ERRORS = sum(1 for line in SERVER_LOG.splitlines() if " ERROR " in line)

APP_PY = """import sys


def load(path):
    with open(path) as f:
        return f.read()


def loader_name():
    return "plain"


def main():
    text = load(sys.argv[1]) if len(sys.argv) > 1 else ""
    print(len(text), loader_name())


if __name__ == "__main__":
    main()
"""

UTILS_PY = """def keep_me(x):
    return x + 1


def old_helper(x):
    # no longer used
    return x * 100


def also_keep(y):
    return y - 1
"""

REPORT_PY = """import datetime

name = "summary-" + "q3" + ".txt"
with open(name, "w") as f:
    f.write("ok\\n")
"""

MAIN_BROKEN_PY = """def greet(name)
    return "hello " + name


print(greet("ana"))
"""

HELDOUT2 = [
    dict(name="h2-csv-sum", files={"sales.csv": SALES_CSV},
         prompt="What is the total of the amount column in sales.csv?", check=("answer", ["102"])),
    dict(name="h2-count-errors", files={"server.log": SERVER_LOG},
         prompt="How many lines of server.log are errors?",
         check=("answer", [str(SERVER_LOG_ERRORS)])),
    dict(name="h2-pinned-version",
         files={"requirements.txt": "flask==3.0.2\nrequests==2.31.0\npytest>=8\n"},
         prompt="Which version of requests does this project pin?", check=("answer", ["2.31.0"])),
    dict(name="h2-make-target",
         files={"Makefile": "build:\n\tcargo build --release\n\ntest:\n\tpytest -q tests/\n\nclean:\n\trm -rf target\n"},
         prompt="What command does `make test` run?", check=("answer", ["pytest -q tests/"])),
    dict(name="h2-oldest-user",
         files={"users.json": '[\n  {"name": "kim", "age": 31},\n  {"name": "lee", "age": 58},\n  {"name": "ron", "age": 44}\n]\n'},
         prompt="Who is the oldest user in users.json?", check=("answer", ["lee"])),
    dict(name="h2-what-file-created", files={"report.py": REPORT_PY},
         prompt="Run report.py. What is the name of the file it creates?",
         check=[("answer", ["summary-q3.txt"]), ("file_has", "summary-q3.txt", ["ok"])]),
    dict(name="h2-count-md-files",
         files={"docs/a.md": "a\n", "docs/b.md": "b\n", "docs/guide/c.md": "c\n",
                "docs/guide/deep/d.md": "d\n", "docs/notes.txt": "n\n", "README.md": "r\n"},
         prompt="How many .md files are there under docs/, subfolders included?", check=("answer", ["4"])),
    dict(name="h2-remove-print",
         files={"job.py": "x = 5\nprint('debug', x)\ny = x * 2\nprint(y)\n"},
         prompt="Remove the debug print line from job.py.",
         check=("file", "job.py", "x = 5\ny = x * 2\nprint(y)\n")),
    dict(name="h2-delete-function", files={"utils.py": UTILS_PY},
         prompt="Delete the function old_helper from utils.py.",
         check=[("file_lacks", "utils.py", ["old_helper", "x * 100"]),
                ("file_has", "utils.py", ["def keep_me(x):", "def also_keep(y):"]),
                ("shell", "python3 -c 'import utils; assert utils.keep_me(1) == 2 and utils.also_keep(1) == 0'")]),
    dict(name="h2-yaml-replicas",
         files={"deploy.yaml": "name: web\nreplicas: 2\nimage: web:1.4\n"},
         prompt="Set replicas to 4 in deploy.yaml.",
         check=("file", "deploy.yaml", "name: web\nreplicas: 4\nimage: web:1.4\n")),
    # Named app.env, not .env: orbit asks before any write to a `.env*`
    # file (docs/SECURITY.md), so a headless run rightly stops there. The
    # first run of this set (2026-12-07) used .env and got "Please approve
    # the edit to .env."; the file was renamed for that reason alone.
    dict(name="h2-env-flag",
         files={"app.env": "PORT=8080\nDEBUG=false\nNAME=shop\n"},
         prompt="Turn DEBUG on in app.env (it should be true).",
         check=("file", "app.env", "PORT=8080\nDEBUG=true\nNAME=shop\n")),
    dict(name="h2-rename-load", files={"app.py": APP_PY},
         prompt="Rename the function load to read_file in app.py, including where it is called.",
         check=[("file_has", "app.py", ["def read_file(path):", "read_file(sys.argv[1])", "def loader_name():",
                                        "loader_name())"]),
                ("file_lacks", "app.py", ["def load(", " load("]),
                ("shell", "python3 app.py app.py")]),
    dict(name="h2-add-import",
         files={"tool.py": "def cwd():\n    return os.getcwd()\n\n\nprint(cwd())\n"},
         prompt="tool.py uses os without importing it. Add `import os` as the first line of tool.py.",
         check=[("shell", "head -n 1 tool.py | grep -qx 'import os'"),
                ("file_has", "tool.py", ["def cwd():", "print(cwd())"]),
                ("shell", "python3 tool.py")]),
    dict(name="h2-lowercase-file",
         files={"names.txt": "Ana\nBORIS\ncLaRa\n"},
         prompt="Make every letter in names.txt lowercase.",
         check=("file", "names.txt", "ana\nboris\nclara\n")),
    dict(name="h2-https-everywhere",
         files={"site/index.html": '<a href="http://a.example">a</a>\n',
                "site/blog/post.html": '<img src="http://b.example/x.png">\n<a href="http://c.example">c</a>\n',
                "site/notes.txt": "http://keep.example\n"},
         prompt="Replace http:// with https:// in every .html file under site/.",
         check=[("file", "site/index.html", '<a href="https://a.example">a</a>\n'),
                ("file", "site/blog/post.html",
                 '<img src="https://b.example/x.png">\n<a href="https://c.example">c</a>\n'),
                ("file", "site/notes.txt", "http://keep.example\n")]),
    dict(name="h2-fix-syntax", files={"main.py": MAIN_BROKEN_PY},
         prompt="python3 main.py fails with a SyntaxError. Fix it.",
         check=("shell", "python3 main.py | grep -qx 'hello ana'")),
    dict(name="h2-last-line", files={"todo.txt": "buy milk\ncall bob\nwrite report\n"},
         prompt="What is the last line of todo.txt?", check=("answer", ["write report"])),
    dict(name="h2-count-calls",
         files={"a.py": "log('x')\nlog('y')\n", "b.py": "def log(m):\n    print(m)\n\nlog('z')\n",
                "c.txt": "log('not code')\n"},
         prompt="How many times is log( called in the .py files of this directory (the definition not counted)?",
         check=("answer", ["3"])),
]
