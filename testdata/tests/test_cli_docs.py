"""The command's documentation and completion against the command itself:
every option `spvjit --help` and `spvjit COMMAND --help` list is described in
the man page (cmd/spvjit.1) and offered by the bash completion (cmd/spvjit.bash,
sourced in bash and called the way bash calls it); the man page formats
without warnings."""

import os
import re
import subprocess

import pytest

ROOT = os.environ.get("SPVJIT_SRC_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SPVJIT_BIN") or os.path.join(ROOT, "build", "spvjit")
MAN = os.path.join(ROOT, "cmd", "spvjit.1")
COMPLETION = os.path.join(ROOT, "cmd", "spvjit.bash")
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def help_text(*args):
    p = subprocess.run([BIN, *args, "--help"], capture_output=True, text=True)
    return p.returncode, p.stdout


def commands():
    code, text = help_text()
    assert code == 0
    section = text.split("commands:")[1].split("\n\n")[0]
    found = re.findall(r"^  (\w+) ", section, re.M)
    assert {"info", "specialize", "run", "compile", "amber"} <= set(found), found
    return found


def options_of(command):
    """The options a command's --help lists (the main usage's line for a
    command without its own --help)."""
    code, text = help_text(command)
    if code != 0:
        main = help_text()[1]
        text = re.search(r"^  %s .*?(?=^  \w|\n\n)" % command, main, re.M | re.S).group(0)
    # option names, not the values in examples (e.g. "-3" in "-D ID=VALUE (16, -3)")
    return {o for o in OPTION.findall(text) if not o[1:].isdigit()}


def man_text():
    with open(MAN) as f:
        return f.read().replace("\\-", "-").replace("\\fB", "").replace("\\fP", "").replace("\\fI", "")


@pytest.mark.parametrize("command", ["info", "specialize", "run", "compile", "amber"])
def test_man_page_describes_every_option(command):
    assert command in commands()
    man = man_text()
    opts = options_of(command)
    assert opts, "no options found for %s" % command
    # the man page has the command as a section entry and each option as a
    # tagged paragraph (or in the synopsis for info's single one)
    assert re.search(r"^\.BI? \"?%s\b" % command, man, re.M), "no entry for %s" % command
    section = man.split('"%s ' % command, 1)[1] if '"%s ' % command in man else man
    missing = sorted(o for o in opts if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), section))
    assert not missing, "the man page lacks %s options %s" % (command, missing)


def test_man_page_describes_the_main_options():
    man = man_text()
    code, text = help_text()
    missing = sorted(o for o in OPTION.findall(text) if not o[1:].isdigit() and o not in man)
    assert not missing, missing


def test_man_page_formats_cleanly():
    p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", MAN], capture_output=True, text=True)
    assert p.returncode == 0 and not p.stderr, p.stderr
    with open(MAN, "rb") as f:
        assert all(b < 128 for b in f.read()), "non-ASCII characters (write them as roff escapes)"


def complete(line, cwd=None):
    """What the completion offers for the command line `line` (cursor at its end)."""
    script = 'source %s\nCOMP_LINE=%s COMP_POINT=%d COMP_WORDS=(%s) COMP_CWORD=0\n_spvjit\nprintf "%%s\\n" "${COMPREPLY[@]}"' % (
        COMPLETION, _quote(line), len(line), _quote(line))
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True, cwd=cwd)
    assert p.returncode == 0 and not p.stderr, p.stderr
    return [w for w in p.stdout.split("\n") if w]


def _quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def test_completion_commands_and_options():
    assert complete("spvjit ") == ["info", "specialize", "run", "compile", "amber", "--help", "--version"]
    assert complete("spvjit ru") == ["run"]
    assert complete("spvjit run k.spv --bu") == ["--buffer"]
    assert complete("spvjit compile k.spv --emit o") == ["opt-llvm"]
    assert complete("spvjit compile k.spv -O ") == ["0", "1", "2", "3"]
    assert complete("spvjit run k.spv --memory ") == ["robust", "check", "unchecked"]
    for command in ("info", "specialize", "run", "compile", "amber"):
        offered = set(complete("spvjit %s k.spv -" % command))
        missing = sorted(options_of(command) - offered)
        assert not missing, "the completion does not offer %s options %s" % (command, missing)


def test_completion_files(tmp_path):
    for name in ("mm.comp.spv", "mm.txt", "in.npy", "a.amber", "b.vkscript"):
        (tmp_path / name).write_text("")
    (tmp_path / "mdir").mkdir()
    assert sorted(complete("spvjit run m", cwd=tmp_path)) == ["mdir/", "mm.comp.spv"]
    assert sorted(complete("spvjit amber ", cwd=tmp_path)) == ["a.amber", "b.vkscript", "mdir/"]
    # DATA files after '@'; bash's current word starts after its last word
    # break (COMP_WORDBREAKS holds '@', ':' and '=')
    assert complete("spvjit run mm.comp.spv --buffer 0:0=@i", cwd=tmp_path) == ["in.npy"]
    assert complete("spvjit run mm.comp.spv --push @i", cwd=tmp_path) == ["in.npy"]
    assert complete("spvjit run mm.comp.spv --out 0:2=mm.t", cwd=tmp_path) == ["mm.txt"]
