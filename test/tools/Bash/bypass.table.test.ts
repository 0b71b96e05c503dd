/**
 * Issue 10 §2: the matcher's bypass classes, tried as an attacker would, against the Bash tool's own verdict
 * (real bash AST, real permission engine, real `bash -n`). Every attack must ask or deny; every true
 * negative must stay allowed with no rule at all, so the matcher stays useful.
 */
import fs from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { PermissionResult } from "../../../src/core/permissionTypes.js";
import { checkBashCommandPermission, judgeReadOnly } from "../../../src/tools/Bash/permissions/index.js";
import { literalWord } from "../../../src/shell/words.js";
import { permissionContext, write, type RuleSet } from "./helpers.js";
import { tempDir } from "../../helpers.js";

const cwd = tempDir("toolgate-bypass-");
write(cwd, "README.md", "# readme\n");
write(cwd, "src/index.ts", "export {};\n");
write(cwd, ".env", "SECRET=1\n");
write(cwd, "secrets/key", "k\n");
fs.mkdirSync(path.join(cwd, ".git"));
const home = tempDir("toolgate-bypass-home-");

/** No Bash rules: only the read-only allowlist, the working directories and the Read rules decide. */
const RULES: RuleSet = { deny: ["Read(./.env)", "Read(./secrets/**)"] };

const verdict = (command: string, rules: RuleSet = RULES): "allow" | "ask" | "deny" => {
  const result: PermissionResult = checkBashCommandPermission({ command, permissionContext: permissionContext(cwd, rules), cwd, home });
  return result.behavior === "passthrough" ? "ask" : result.behavior;
};

/** Attacks by class: each writes, runs code or reads what the rules forbid, so it must not run unasked. */
const ATTACKS: Record<string, string[]> = {
  "xargs appends arguments": [
    "printf -- '-delete' | xargs find .",
    "printf -- '-fprint\\npwned' | xargs find .",
    "printf -- '-opwned' | xargs sort README.md",
    "printf -- '--output=pwned' | xargs sort",
    "printf -- '-c\\ncore.pager=sh' | xargs git",
    "printf -- '--output=pwned' | xargs git log",
    "printf -- '-O\\ntouch' | xargs git grep x",
    "echo /etc/passwd | xargs cat",
    "echo .env | xargs cat",
    "echo x | xargs grep -l foo",
    "echo x | xargs rg --pre sh",
    "echo x | xargs -0 head",
    "echo x | xargs -I% sort % README.md",
    "echo x | xargs -n1 tree",
    "echo x | xargs file",
    "echo x | xargs printf -v",
    "echo x | xargs test -v",
    "echo x | xargs date",
    "echo x | xargs hostname",
    "echo x | xargs uniq README.md",
    "echo x | xargs xxd README.md",
    "xargs -a .env echo",
    "xargs --arg-file=.env echo",
    "xargs -a secrets/key echo",
    "xargs -a /etc/passwd echo",
  ],
  "long options by unique prefix": [
    "sort --outp=pwned README.md",
    "sort --out=pwned README.md",
    "sort --o=pwned README.md",
    "sort --compress-prog=sh README.md",
    "sort --files0=list",
    "git grep --open-files-in-pa=touch x",
    "git grep --open=touch x",
    "git log --outp=pwned",
    "git diff --out=pwned",
    "git show --ext-dif HEAD",
    "git ls-remote --upload-p=touch origin",
    "rg --pr=cat x",
    "rg --search-z x",
    "rg --hostname=sh x",
    "fd --exe touch",
    "fd --exec-b touch",
    "tree --fromf list",
    "file --comp -m x",
    "wc --files0=list",
    "du --files0=list",
    "date --se=2020-01-01",
    "date --fil=.env",
    "md5sum --che sums",
    "diff --from=.env README.md",
  ],
  "values attached to short options": [
    "sort -opwned README.md",
    "sort -rnopwned README.md",
    "sort -uo pwned README.md",
    "git grep -Otouch x",
    "git grep -O'touch pwned' x",
    "git grep -nO'touch pwned' x",
    "tree -opwned",
    "tree -aopwned",
    "grep -f.env x README.md",
    "grep -rf.env x src",
    "hexdump -f.env README.md",
    "du -X.env .",
    "diff -X.env README.md src",
    "date -s2020-01-01",
    "date -f.env",
    "printf -v'a[$(touch pwned)]' x",
    "printf -vPATH /tmp",
    "file -C -m x",
    "file -Cmx",
    "jq -f.env README.md",
  ],
  "NUL bytes end $'…' words": [
    "find . $'-delete\\x00'",
    "find . $'-delete\\x00junk'",
    "find . $'-fprint\\x00' pwned",
    "find . $'-exec\\x00' touch pwned ';'",
    "sort $'-o\\x00' pwned README.md",
    "sort $'--output=pwned\\x00.txt' README.md",
    "git $'-c\\x00' core.pager=sh log",
    "git log $'--output\\x00=x' pwned",
    "git grep $'--open-files-in-pager=touch\\x00' x",
    "rg $'--pre\\x00' sh x",
    "tree $'-o\\0' pwned",
    "cat $'.env\\x00junk'",
    "cat $'secrets/key\\0'",
  ],
  "git subcommands and options": [
    "git ls-remote --upload-pack=touch origin",
    "git ls-remote --upload-pack touch origin",
    "git ls-remote --exec=touch origin",
    "git ls-remote 'ext::sh -c touch% pwned'",
    "git ls-remote /tmp/other-repo",
    "git ls-remote ../other",
    "git grep -O x",
    "git grep --open-files-in-pager=touch x",
    "git log --output=pwned",
    "git log --output pwned",
    "git show --output=pwned HEAD",
    "git diff --output=pwned",
    "git diff-tree --output=pwned HEAD",
    "git diff-index --output=pwned HEAD",
    "git diff-files --output=pwned",
    "git whatchanged --output=pwned",
    "git shortlog --output=pwned",
    "git reflog --output=pwned",
    "git reflog show --output=pwned",
    "git stash list --output=pwned",
    "git stash show --output=pwned",
    "git diff --ext-diff",
    "git log -p --ext-diff",
    "git log -L1,2:.env",
    "git -C /tmp/x status",
    "git -C src status",
    "git -Csrc status",
    "git --git-dir=/tmp/x log",
    "git --git-dir /tmp/x log",
    "git --work-tree=/tmp status",
    "git --bare log",
    "git -c core.fsmonitor=sh status",
    "git -ccore.pager=sh log",
    "git --config-env=core.pager=X log",
    "git --exec-path=/tmp log",
    "git --attr-source=HEAD log -p",
    "GIT_DIR=/tmp/x git log",
    "GIT_WORK_TREE=/tmp git status",
    "GIT_CONFIG_GLOBAL=/tmp/c git log",
    "GIT_EXTERNAL_DIFF=sh git diff",
    "env GIT_DIR=/tmp/x git log",
    "export GIT_DIR=/tmp/x; git log",
    "GIT_DIR=/tmp/x; export GIT_DIR; git log",
    "git branch new",
    "git branch -D main",
    "git branch -m a b",
    "git branch --set-upstream-to=x",
    "git tag v1",
    "git tag -d v1",
    "git tag -a v1 -m x",
    "git config core.pager sh",
    "git config --unset user.name",
    "git config --add a.b c",
    "git config set a.b c",
    "git config --file=/etc/gitconfig --list",
    "git remote add x /tmp/x",
    "git remote set-url origin x",
    "git stash",
    "git stash drop",
    "git stash pop",
    "git worktree add /tmp/w",
    "git reflog expire --all",
    "git reflog delete HEAD@{0}",
    "git fetch",
    "git checkout .",
    "git $SUB",
    "git log $OPT",
    "git diff *",
    "git help log",
    "git --help",
  ],
  "git REV:path and pathspecs are reads": [
    "git show HEAD:.env",
    "git show HEAD:secrets/key",
    "git show HEAD~1:secrets/key",
    "git show main:./.env",
    "git show :.env",
    "git show :0:secrets/key",
    "git cat-file -p HEAD:.env",
    "git cat-file blob HEAD:secrets/key",
    "git cat-file -p :secrets/key",
    "git diff HEAD:.env HEAD:README.md",
    "git log -p -- .env",
    "git diff HEAD -- secrets/key",
    "git show HEAD -- .env",
    "git blame .env",
    "git blame --contents .env README.md",
    "git blame --contents=/etc/passwd README.md",
    "git grep -f .env",
    "git grep x HEAD:secrets",
    "git config --blob HEAD:.env --list",
    "git ls-files --exclude-from=/etc/passwd",
    "cd src && git show HEAD:.env",
    "git diff --no-index /etc/passwd README.md",
  ],
  "bash evaluates array subscripts": [
    "test -v 'a[$(touch pwned)]'",
    "test -v a[$X]",
    "test 1 -eq 1 -a -v 'a[$(touch pwned)]'",
    "[ -v 'a[$(touch pwned)]' ]",
    "[ -R 'a[$(touch pwned)]' ]",
    "[[ -v 'a[$(touch pwned)]' ]]",
    "[[ -v \"a[\\$(touch pwned)]\" ]]",
    "[[ -R 'a[$(touch pwned)]' ]]",
    "[[ 'a[$(touch pwned)]' -eq 1 ]]",
    "[[ 1 -lt 'a[$(touch pwned)]' ]]",
    "[[ x -ge \"a[\\$(touch pwned)]\" ]]",
    "[[ $x -eq 1 ]]",
    "x='a[$(touch pwned)]'; [ -v \"$x\" ]",
    "x='a[$(touch pwned)]'; test -v $x",
    "printf -v 'a[$(touch pwned)]' x",
    "printf -v 'arr[$(touch pwned)]' %s x",
    "v=-v; printf $v 'a[$(touch pwned)]' x",
    "printf $FMT x",
  ],
  "other writers and runners": [
    "file -C -m magic",
    "file --compile -m magic",
    "file -f list",
    "file -m /tmp/magic README.md",
    "file -z README.md",
    "file -Z README.md",
    "rg -z foo",
    "rg --search-zip foo",
    "rg -zn foo",
    "rg -nz foo",
    "rg --pre cat foo",
    "rg --pre=cat foo",
    "rg --pre-glob '*' --pre cat foo",
    "rg --hostname-bin sh foo",
    "find . -exec touch pwned ';'",
    "find . -execdir touch pwned ';'",
    "find . -ok touch pwned ';'",
    "find . -okdir touch pwned ';'",
    "find . -delete",
    "find . -fprint pwned",
    "find . -fprint0 pwned",
    "find . -fprintf pwned %p",
    "find . -fls pwned",
    "find . -files0-from list",
    "find $DIR -name x",
    "find * -name x",
    "fd -x touch",
    "fd -X touch",
    "fd --exec touch",
    "fd --exec-batch touch",
    "tree -o pwned",
    "tree -R -H . -o pwned",
    "sort -o pwned README.md",
    "sort --output=pwned README.md",
    "sort --compress-program=sh README.md",
    "sort -T /tmp README.md",
    "sort --files0-from=list",
    "sort * ",
    "uniq README.md pwned",
    "uniq -c README.md pwned",
    "xxd README.md pwned",
    "xxd -r README.md pwned",
    "wc --files0-from=list",
    "du --files0-from=list",
    "md5sum -c sums",
    "sha256sum --check sums",
    "b2sum -c sums",
    "strings @/etc/passwd",
    "hostname evil",
    "hostname -F /etc/passwd",
    "hostname -b x",
    "date -s 2020-01-01",
    "date --set=2020-01-01",
    "date 010100002030",
    "date -f /etc/shadow",
    "env -S 'touch pwned'",
    "command touch pwned",
    "jq 'import \"x\" as $x; .' README.md",
    "jq -n 'include \"x\"; 1'",
    "jq -n '\"x\" | modulemeta'",
    "jq $FILTER README.md",
    "echo hi > pwned",
    "cat README.md > pwned",
    "cat README.md | tee pwned",
  ],
  "syntax bash rejects": [
    "ls ;; pwd",
    "ls ;; touch pwned",
    "ls ;& pwd",
    "ls ;;& pwd",
    "fi ]] ls",
    "echo hi; done",
    "ls; esac",
    "bash -c 'ls ;; pwd'",
    "sh -c 'fi'",
    "ls )",
    "ls &&",
    "| ls",
  ],
  "paths in option values": [
    "diff --from-file=.env README.md",
    "diff --from-file=secrets/key README.md",
    "diff --to-file=.env README.md",
    "diff --from-file /etc/passwd README.md",
    "diff --exclude-from=.env README.md src",
    "diff -X /etc/passwd README.md src",
    "grep --file=.env README.md",
    "grep --file .env README.md",
    "grep -f .env README.md",
    "grep -f /etc/passwd README.md",
    "grep --exclude-from=.env x src",
    "grep -r x /etc",
    "rg -f .env src",
    "rg --file=secrets/key src",
    "rg --ignore-file=/etc/passwd x",
    "fd --search-path /etc x",
    "fd --base-directory /etc x",
    "fd --ignore-file .env x",
    "du --exclude-from=.env .",
    "hexdump -f .env README.md",
    "jq --rawfile x .env -n '$x'",
    "jq --slurpfile x secrets/key -n '$x'",
    "jq -f .env README.md",
    "jq --from-file /etc/passwd README.md",
    "jq -L /etc -n 1",
    "realpath --relative-to=/etc README.md",
    "date -r .env",
    "date --reference=/etc/shadow",
    "sort --random-source=.env README.md",
    "find . -newer .env",
    "find . -samefile secrets/key",
    "cat .env",
    "cat ./secrets/key",
    "head -c 10 .env",
    "tail -n1 /etc/passwd",
    "cmp .env README.md",
    "wc -l secrets/key",
    "ls ../",
    "stat /etc/shadow",
  ],
  "cd judged in order": [
    "cd secrets && cat key",
    "cd secrets; cat key",
    "cd secrets || true; cat key",
    "cd src; cd ../secrets; cat key",
    "cd src && cd .. && cd secrets && cat key",
    "cd secrets && git show HEAD:key",
    "cd /tmp && ls",
    "cd .. && ls",
    "cat README.md; cd /tmp",
    "cd src && cat ../.env",
    "cd secrets && echo x > key",
    "f() { cat key; }; cd secrets; f",
    "trap 'cat key' EXIT; cd secrets",
    "for d in a b; do cd secrets; done; cat key",
    "cd \"$D\" && cat README.md",
    "pushd secrets && cat key",
    "cd secrets && find . -execdir cat key ';'",
  ],
};

/** True negatives: common read-only command lines that must stay allowed with no Bash rule. */
const ALLOWED = [
  "ls", "ls -la", "ls -la src", "ls -lah --color=auto src", "ls -1 src", "ls -R", "ls src -la",
  "git status", "git status -sb", "git status --porcelain=v2", "git status -uno", "git status --short src",
  "git log --oneline -5", "git log --oneline --graph --decorate --all", "git log -p -3 -- src/index.ts",
  "git log --format=%H -n 3", "git log --since=2.weeks --author=me", "git log @{u}..", "git log --stat -1",
  "git log --pretty=format:'%h %s' -10", "git log -S foo --oneline", "git --no-pager log -1",
  "git diff", "git diff --stat", "git diff --cached", "git diff HEAD~1 -- src/", "git diff -M50% HEAD", "git diff --name-only main...HEAD",
  "git diff --word-diff", "git diff -U5", "git show HEAD", "git show HEAD:src/index.ts", "git show --stat HEAD~2", "git show -s --format=%ci HEAD",
  "git branch", "git branch -a", "git branch -vv", "git branch --show-current", "git branch --contains HEAD", "git branch -l 'feat/*'",
  "git tag", "git tag -l 'v*'", "git tag -n5", "git tag --sort=-creatordate", "git remote", "git remote -v", "git remote show origin", "git remote get-url origin",
  "git rev-parse HEAD", "git rev-parse --show-toplevel", "git rev-parse --abbrev-ref HEAD", "git rev-parse --short HEAD", "git rev-list --count HEAD",
  "git stash list", "git stash show -p stash@{0}", "git config --get user.name", "git config --list", "git config --global --get user.email",
  "git config get user.name", "git blame src/index.ts", "git blame -L 1,5 src/index.ts", "git ls-files", "git ls-files -m", "git ls-tree -r HEAD",
  "git ls-tree --name-only HEAD src", "git grep -n foo", "git grep -e foo -- src", "git grep -i foo HEAD", "git describe --tags", "git describe --always --dirty",
  "git merge-base HEAD main", "git cat-file -p HEAD", "git cat-file -t HEAD", "git reflog", "git reflog -5", "git shortlog -sn", "git ls-remote origin",
  "git ls-remote", "git worktree list", "git count-objects -v", "git for-each-ref --format='%(refname)' refs/heads", "git show-ref --heads", "git version",
  "git check-ignore -v src/index.ts", "git name-rev HEAD", "git whatchanged -1",
  "grep -rn foo src", "grep -rn --include='*.ts' foo src", "grep -c foo README.md", "grep -E 'a|b' README.md", "grep -A3 -B2 foo README.md",
  "grep -e foo -e bar README.md", "egrep x README.md", "fgrep -x x README.md", "grep -5 foo README.md", "grep -rl /usr/bin src", "grep --color=always foo README.md",
  "cat README.md | sort", "cat README.md | sort | uniq -c | sort -rn | head", "sort -k2 -t, README.md", "sort -u README.md", "sort -rn README.md", "sort -k 2,2n README.md",
  "cd src && ls", "cd src && ls && cd ..", "git status && cd src", "cd src; ls -la", "(cd src && ls)", "cd src && cat index.ts", "cd src && cd .. && cat README.md",
  "cat README.md; cd src", "cd src || true; ls", "cd src && git log -1", "cd src && grep -rn foo .", "pushd src && ls",
  "find . -name '*.ts'", "find src -type f -name '*.ts' -newer README.md", "find . -maxdepth 2 -type d", "find . -name x -print0", "find . -type f -size +1k -mtime -2",
  "find . -path ./node_modules -prune -o -name '*.ts' -print", "find src", "find", "find . -iname '*.MD' -ls",
  "rg foo", "rg -n foo src", "rg -i --type ts foo", "rg --files src", "rg -uu foo", "rg -g '*.ts' foo", "rg -l foo", "rg -C2 foo src", "rg --json foo",
  "fd ts src", "fd -e ts", "fd -t f -H", "tree -L 2", "tree -a -I node_modules", "tree -d src",
  "file README.md", "file -b --mime-type README.md", "stat README.md", "stat -c %s README.md", "du -sh src", "du -h --max-depth=1 .", "df -h", "df -h .",
  "realpath src", "readlink -f src", "wc -l README.md", "wc -l src/index.ts README.md", "head -n 20 README.md", "head -5 README.md", "tail -n +2 README.md",
  "tail -f README.md", "cut -d: -f1 README.md", "tr a-z A-Z < README.md", "nl README.md", "tac README.md", "rev README.md", "fold -w 80 README.md",
  "column -t README.md", "paste -sd, README.md", "od -c README.md", "hexdump -C README.md", "xxd README.md", "xxd -l 64 README.md", "strings README.md",
  "md5sum README.md", "sha256sum README.md src/index.ts", "cksum README.md", "cmp README.md src/index.ts", "comm -12 README.md src/index.ts",
  "diff README.md src/index.ts", "diff -u README.md src/index.ts", "diff -ru src src", "diff --from-file=README.md src/index.ts",
  "jq . README.md", "jq -r '.name' README.md", "jq --arg x 1 '.[$x]' README.md", "jq -n '1 + 1'",
  "echo hi", "echo -n hi", "echo $HOME", "echo x{a,b}", "printf '%s\\n' a b", "printf -v x %s 1", "pwd", "whoami", "id -u", "uname -a", "hostname", "hostname -f",
  "date", "date +%s", "date -u +%Y", "date -Iseconds", "date -d yesterday +%F", "seq 1 10", "seq -w 1 10", "sleep 1", "test -f README.md", "[ -d src ]",
  "[ -n \"$x\" ]", "[ \"$a\" = \"$b\" ]", "[[ -f README.md ]]", "[[ 1 -eq 1 ]]", "[[ -v HOME ]]", "test -v HOME", "basename /a/b.ts .ts", "dirname src/index.ts",
  "nproc", "which git", "type ls", "command -v git", "printenv PATH", "env", "true", "git status 2>&1 | head", "ls -la | grep ts | wc -l",
  "cat README.md | xargs echo", "ls | xargs -n1 basename", "git log --oneline | head -20", "grep -rn TODO src | wc -l", "uniq -c README.md", "readlink src",
  "if [ -f README.md ]; then cat README.md; fi", "for f in a b; do echo $f; done", "cat README.md && ls src || pwd", "x=1; echo $x",
];

/** Programs on the allowlist that take no file and have no option that writes or runs: unknown extra arguments are harmless. */
const HARMLESS_WITH_ANY_ARGUMENTS = new Set(["echo", "true", "false", ":", "basename", "dirname", "tr", "sleep", "test", "["]);
const ALLOWLIST = (
  "cat head tail ls wc grep egrep fgrep rg find fd tree file stat du df realpath readlink sort uniq cut tr nl tac rev fold column paste od " +
  "hexdump xxd strings md5sum sha1sum sha256sum sha512sum cksum b2sum cmp comm diff jq echo printf pwd true false : which type whoami id groups " +
  "uname hostname date seq sleep test [ basename dirname nproc arch uptime tty locale printenv git"
).split(" ");

const attackCases = Object.entries(ATTACKS).flatMap(([kind, commands]) => commands.map((command) => ({ kind, command })));

describe("`..` after a symlink climbs from where the link points (bash opens the path as written)", () => {
  // outside/inner is reached through link; outside/secret.txt sits next to the link's target, outside the project
  const outside = tempDir("toolgate-dotdot-outside-");
  write(outside, "inner/file.txt", "in\n");
  write(outside, "secret.txt", "s\n");
  const project = tempDir("toolgate-dotdot-project-");
  write(project, "README.md", "# readme\n");
  write(project, "secret.txt", "decoy\n");
  fs.symlinkSync(path.join(outside, "inner"), path.join(project, "link"));
  const judge = (command: string, set: RuleSet = {}) => {
    const result = checkBashCommandPermission({ command, permissionContext: permissionContext(project, set), cwd: project, home });
    return result.behavior === "passthrough" ? "ask" : result.behavior;
  };

  it("bash really reads the file beside the link's target, not the project's file of that name", () => {
    const out = spawnSync("bash", ["-c", "cat link/../secret.txt"], { cwd: project, encoding: "utf8" });
    expect(out.stdout).toBe("s\n");
  });

  it.each(["cat link/../secret.txt", "head -n1 ./link/../secret.txt", "ls link/..", "grep -r s link/../", "wc -l link/./../secret.txt", "cat link/../inner/../secret.txt", "cd link && cat ../secret.txt", "cd link; head ../secret.txt"])(
    "%s: outside the working directory, so it asks",
    (command) => {
      expect(judge(command)).toBe("ask");
    },
  );

  it("a Read deny rule on the real place is honoured through the link, also for a write", () => {
    // `//` starts an absolute path in a rule (a single `/` is relative to the settings file)
    const deny = { deny: [`Read(/${outside}/secret.txt)`, `Edit(/${outside}/**)`] };
    expect(judge("cat link/../secret.txt", deny)).toBe("deny");
    expect(judge(`cat ${project}/link/../secret.txt`, deny)).toBe("deny");
    expect(judge("echo x > link/../new.txt", deny)).toBe("deny");
  });

  it("without a link, `..` stays inside and is allowed as before", () => {
    write(project, "sub/a.txt", "a\n");
    expect(judge("cat sub/../README.md")).toBe("allow");
  });
});

describe("Bash matcher bypass classes (issue 10 §2)", () => {
  it("has several hundred cases", () => {
    expect(attackCases.length + ALLOWED.length + ALLOWLIST.length * 4).toBeGreaterThanOrEqual(500);
  });

  it.each(attackCases)("$kind: $command asks or denies", ({ command }) => {
    expect(verdict(command)).not.toBe("allow");
  });

  it.each(ALLOWED)("%s stays allowed", (command) => {
    expect(verdict(command)).toBe("allow");
  });

  describe("every program on the allowlist", () => {
    it.each(ALLOWLIST)("%s: arguments from xargs are unknown arguments", (program) => {
      expect(verdict(`printf x | xargs ${program}`)).toBe(HARMLESS_WITH_ANY_ARGUMENTS.has(program) ? "allow" : "ask");
    });

    it.each(ALLOWLIST)("%s: an argument that depends on an expansion", (program) => {
      expect(verdict(program === "[" ? "[ $X ]" : `${program} $X`)).toBe(HARMLESS_WITH_ANY_ARGUMENTS.has(program) ? "allow" : "ask");
    });

    it.each(ALLOWLIST.filter((p) => !["echo", "true", "false", ":", "test", "["].includes(p)))("%s: unknown and abbreviated options are not read-only", (program) => {
      expect(judgeReadOnly([program, "--no-such-option"].map(literalWord)).readOnly).toBe(false);
      expect(judgeReadOnly([program, "--hel"].map(literalWord)).readOnly).toBe(false);
    });

    it.each(ALLOWLIST.filter((p) => !HARMLESS_WITH_ANY_ARGUMENTS.has(p) && p !== "printf"))("%s: its operand Read-denied or outside the project", (program) => {
      const words = program === "git" ? "git show HEAD:.env" : program === "jq" ? "jq . .env" : program === "date" ? "date -r .env" : program === "grep" || program === "egrep" || program === "fgrep" || program === "rg" ? `${program} x .env` : `${program} .env`;
      const outcome = verdict(words);
      // programs that read no file either refuse an operand (date, hostname…) or ignore it (pwd, whoami…)
      const readsFiles = judgeReadOnly([program].map(literalWord)).readsFiles;
      if (readsFiles && program !== "fd") expect(outcome).toBe("deny");
      else expect(["allow", "ask"]).toContain(outcome);
    });
  });
});
