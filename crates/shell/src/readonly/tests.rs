//! Classifier tests: what must be read-only, what must not (including
//! bypass attempts), and the destructive heuristic.

use crate::{is_destructive as is_destructive_command, is_read_only as is_read_only_command};

fn assert_read_only(cmds: &[&str]) {
    for c in cmds {
        assert!(is_read_only_command(c), "expected read-only: {c:?}");
    }
}

fn assert_exclusive(cmds: &[&str]) {
    for c in cmds {
        assert!(!is_read_only_command(c), "expected NOT read-only: {c:?}");
    }
}

#[test]
fn plain_read_only_commands() {
    assert_read_only(&[
        "ls",
        "ls -la src",
        "cat Cargo.toml",
        "head -n 5 README.md",
        "tail -20 log.txt",
        "wc -l src/*.rs",
        "grep -rn 'fn main' .",
        "rg -n TODO crates",
        "find . -name '*.rs' -type f",
        "echo hello",
        "pwd",
        "which cargo",
        "stat Cargo.toml",
        "file Cargo.toml",
        "du -sh .",
        "df -h",
        "sort names.txt",
        "sort -r -k2 names.txt",
        "uniq -c names.txt",
        "cut -d: -f1 /etc/passwd",
        "tr a-z A-Z",
        "diff a.txt b.txt",
        "date",
        "date +%s",
        "env",
        "printenv PATH",
        "tree -L 2",
        "true",
        "false",
        "basename /a/b.txt",
        "dirname /a/b.txt",
        "realpath .",
        "jq .name package.json",
        "ls -la # just listing",
        "",
    ]);
}

#[test]
fn compound_read_only_commands() {
    assert_read_only(&[
        "ls | wc -l",
        "cat a.txt | grep x | sort | uniq -c | head",
        "ls && pwd",
        "ls || echo none",
        "ls; pwd",
        "ls\npwd",
        "(ls; pwd)",
        "{ ls; pwd; }",
        "! grep -q x file",
        "[[ -f x ]] && cat x",
        "[ -d src ] || echo missing",
        "ls 2>&1 | head",
        "ls 2>/dev/null",
        "ls >/dev/null 2>&1",
        "ls &>/dev/null",
        "grep x f >&2",
        "echo hi >&-",
        "cat < in.txt",
        "grep x <<< \"some text\"",
        "cat <<EOF\nplain text\nEOF",
        "LC_ALL=C sort f",
        "TZ=UTC date",
        "ls |& cat",
        "echo $HOME",
        "ls \"$PWD\"/src",
    ]);
}

#[test]
fn git_read_only_subcommands() {
    assert_read_only(&[
        "git status",
        "git status --short",
        "git log --oneline -5",
        "git log --format=%H -1",
        "git diff HEAD~1 -- src",
        "git diff --stat",
        "git show HEAD:Cargo.toml",
        "git branch",
        "git branch -a -v",
        "git branch --show-current",
        "git branch --list 'feat/*'",
        "git --no-pager log -3",
        "git -P diff",
        "git -C sub status",
        "git rev-parse HEAD",
        "git ls-files",
        "git blame src/main.rs",
        "git tag",
        "git tag -l 'v1.*'",
        "git remote -v",
        "git stash list",
        "git config --get user.name",
        "git grep -n foo",
    ]);
}

#[test]
fn writes_and_unknown_commands_are_exclusive() {
    assert_exclusive(&[
        "rm -rf x",
        "mv a b",
        "cp a b",
        "touch f",
        "mkdir d",
        "cd sub",
        "cd sub && ls",
        "npm install",
        "cargo build",
        "python3 -c 'print(1)'",
        "sed -i s/a/b/ f",
        "sed -n 1p f",
        "awk '{print}' f",
        "tee f",
        "xargs rm",
        "eval ls",
        "bash -c ls",
        "sh -c 'rm x'",
        "exec ls",
        "command ls",
        "/bin/ls",
        "./ls",
        "a=1",
        "export A=1",
        "f() { ls; }",
        "if true; then ls; fi",
        "for f in *; do cat $f; done",
        "while true; do ls; done",
    ]);
}

#[test]
fn bypass_attempts_are_exclusive() {
    assert_exclusive(&[
        // Lists, newlines, background: every part must pass.
        "ls; rm -rf x",
        "ls && rm -rf x",
        "ls || rm -rf x",
        "ls & rm -rf x",
        "ls\nrm x",
        "ls\r\nrm x",
        "cat f | rm x",
        "(ls; rm x)",
        "{ ls; rm x; }",
        "! rm x",
        // Substitutions run commands wherever they appear.
        "cat $(rm x)",
        "cat `rm x`",
        "echo \"$(rm x)\"",
        "ls ${x:-$(rm x)}",
        "cat <(rm x)",
        "diff <(ls) >(rm x)",
        "[[ -f $(rm x) ]]",
        "x=$(rm x)",
        "grep x <<< \"$(rm x)\"",
        "cat <<EOF\n$(rm x)\nEOF",
        "echo $(( $(rm x) ))",
        // Redirections that write.
        "ls > f",
        "ls >> f",
        "ls &> f",
        "ls &>> f",
        "ls >| f",
        "ls >& f",
        "ls 2> err.txt",
        "> f ls",
        "cat <> f",
        "cat <<EOF > f\nx\nEOF",
        "cat <<EOF | tee f\nx\nEOF",
        "grep x <<< y > f",
        "[[ -f x ]] > f",
        "(ls) > f",
        "{ ls; } > f",
        // Writers behind read-only names.
        "echo hi | tee f",
        "find . -delete",
        "find . -name x -exec rm {} \\;",
        "find . -execdir rm {} +",
        "find . -ok rm {} \\;",
        "find . -fprint out.txt",
        "find . -fprintf out.txt %p",
        "find . -fls out.txt",
        "find . -de''lete",
        "find . \"-delete\"",
        "find . \\-delete",
        "find . $ARGS",
        "find . {-delete,-print}",
        "find *",
        "sort -o out.txt f",
        "sort -ro out.txt f",
        "sort --output=out.txt f",
        "sort --compress-program=sh f",
        "sort --out=out.txt f",
        "sort --comp=sh f",
        "date --se=2020-01-01",
        "file --comp -m magic",
        "git diff --out=f",
        "git log --ext",
        "git grep --open foo",
        "uniq in.txt out.txt",
        "tree -o out.txt",
        "file -C -m magic",
        "date -s 2020-01-01",
        "date --set=2020-01-01",
        "env rm x",
        "env -i rm x",
        "rg --pre ./script pattern",
        "rg --pre=sh pattern",
        // git options that run programs or write.
        "git -c core.pager=evil log",
        "git -c alias.x='!rm -rf /' x",
        "git --config-env=core.pager=EVIL log",
        "git --exec-path=/tmp log",
        "git -p log",
        "git --paginate log",
        "git diff --output=f",
        "git log --output f",
        "git diff --ext-diff",
        "git grep -Ovim foo",
        "git grep --open-files-in-pager foo",
        "git branch newbranch",
        "git branch -D old",
        "git branch -m a b",
        "git tag v1",
        "git tag -d v1",
        "git remote add x url",
        "git stash",
        "git stash drop",
        "git config user.name x",
        "git config --get x --unset y",
        "git commit -m x",
        "git push",
        "git reset --hard",
        "git checkout .",
        "git $SUB",
        "git log $(rm x)",
        // Assignment prefixes that change behaviour.
        "GIT_EXTERNAL_DIFF=rm git diff",
        "PAGER=evil git log",
        "LD_PRELOAD=x.so ls",
        "PATH=. ls",
        "LC_ALL=$(rm x) ls",
        // Parse errors.
        "ls; ;",
        "ls |",
        "cat 'unterminated",
        "ls &&",
    ]);
}

#[test]
fn destructive_heuristic() {
    for c in [
        "rm -rf build",
        "ls && rm x",
        "cat $(rm x)",
        "mv a b",
        "dd if=/dev/zero of=disk",
        "shred f",
        "truncate -s 0 f",
        "/bin/rm f",
        "sudo rm -rf /",
        "xargs rm",
        "env X=1 rm f",
        "find . -delete",
        "find . -exec rm {} \\;",
        "git reset --hard HEAD~1",
        "git clean -fdx",
        "git push --force",
        "git push -f origin main",
        "git push origin +main",
        "git push --force-with-lease",
        "git -C sub reset --hard",
        "git checkout -- src",
        "git checkout .",
        "git restore src/main.rs",
        "git branch -D feature",
        "git stash drop",
        "git stash clear",
        "mkfs.ext4 /dev/sdb1",
    ] {
        assert!(is_destructive_command(c), "expected destructive: {c:?}");
    }
    for c in [
        "ls",
        "cat f",
        "git status",
        "git push",
        "git push origin main",
        "git reset HEAD f",
        "git restore --staged f",
        "git checkout main",
        "git clean -n",
        "find . -name x",
        "echo rm",
        "grep -r rm .",
        "cp a b",
    ] {
        assert!(
            !is_destructive_command(c),
            "expected not destructive: {c:?}"
        );
    }
}
