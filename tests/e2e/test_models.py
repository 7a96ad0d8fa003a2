#!/usr/bin/python3
"""Models by name: --model NAME and $MINIMT_MODEL along the search path, and `minimt models`.

The search path is $MINIMT_MODEL_PATH (colon-separated), then ~/.local/share/minimt/models
($XDG_DATA_HOME/minimt/models when set), then the installed models (for a build tree: the
source tree's models/). Checked here, each in a fresh HOME so this machine's folders stay out:
- which folder wins when a name is in several (order of MINIMT_MODEL_PATH, then the user
  folder, then the shipped en-fr), found by the model directory `minimt info` prints;
- a word with a '/' or naming a directory here is a path, as before;
- an unknown name fails with status 1 and one stderr line naming every folder looked in;
- `minimt models` lists every model folder by folder with its summary, marks the hidden one and
  the default, `--names` and `--path`.

    /usr/bin/python3 tests/e2e/test_models.py --minimt build/minimt
"""

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from support import HAND, ROOT, SHIPPED  # noqa: E402


def run(minimt, args, env, cwd=None):
    """(status, stdout, stderr) of minimt ARGS as text, with only `env`'s model variables."""
    return support.run([minimt] + args, env=env, cwd=cwd, text=True)


def model_of(minimt, args, env, cwd=None):
    """The model directory `minimt info` loads, or the error."""
    status, out, err = run(minimt, ["info"] + args, env, cwd)
    m = re.match(r"model\s+(\S+)\n", out)
    return m.group(1) if status == 0 and m else "status %d: %s" % (status, err.strip())


def make_tree(tmp):
    """a/m1 (hand), b/m1 (hand copy), b/m2, user/m2, user/en-fr: which one loads is the path."""
    dirs = {}
    for name in ("a/m1", "b/m1", "b/m2", "home/.local/share/minimt/models/m2",
                 "home/.local/share/minimt/models/en-fr", "xdg/minimt/models/m2"):
        path = os.path.join(tmp, name)
        shutil.copytree(HAND, path)
        dirs[name] = path
    os.makedirs(os.path.join(tmp, "b", "not-a-model"))  # no config.json: not listed, not found
    os.makedirs(os.path.join(tmp, "cwd", "m1"))         # a directory here: --model m1 is a path
    broken = os.path.join(tmp, "b", "broken")
    os.makedirs(broken)
    with open(os.path.join(broken, "config.json"), "w", encoding="utf-8") as f:
        f.write("{not json")
    return dirs


def check_search_order(c, minimt, tmp, dirs):
    home = os.path.join(tmp, "home")
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    user = os.path.join(home, ".local/share/minimt/models")
    env = {"HOME": home, "MINIMT_MODEL_PATH": a + ":" + b}
    got = model_of(minimt, ["-m", "m1"], env)
    c.check(got == dirs["a/m1"], "MINIMT_MODEL_PATH=a:b, -m m1: a/m1 (got %s)" % got)
    got = model_of(minimt, ["--model", "m1"], dict(env, MINIMT_MODEL_PATH=b + ":" + a))
    c.check(got == dirs["b/m1"], "MINIMT_MODEL_PATH=b:a, --model m1: b/m1 (got %s)" % got)
    got = model_of(minimt, ["-m", "m2"], env)
    c.check(got == dirs["b/m2"], "MINIMT_MODEL_PATH before the user folder: b/m2 (got %s)" % got)
    got = model_of(minimt, ["-m", "m2"], {"HOME": home})
    c.check(got == dirs["home/.local/share/minimt/models/m2"],
            "no MINIMT_MODEL_PATH: ~/.local/share/minimt/models/m2 (got %s)" % got)
    got = model_of(minimt, ["-m", "m2"], {"HOME": home, "XDG_DATA_HOME": tmp + "/xdg"})
    c.check(got == dirs["xdg/minimt/models/m2"],
            "XDG_DATA_HOME set: $XDG_DATA_HOME/minimt/models/m2 (got %s)" % got)
    got = model_of(minimt, ["-m", "en-fr"], {"HOME": home})
    c.check(got == user + "/en-fr", "the user folder before the shipped models: %s" % got)
    got = model_of(minimt, ["-m", "en-fr"], {"HOME": tmp + "/nohome"})
    c.check(got == SHIPPED, "-m en-fr with nothing else: the shipped models/en-fr (got %s)" % got)
    got = model_of(minimt, [], {"HOME": home, "MINIMT_MODEL_PATH": a})
    c.check(got == SHIPPED, "no --model: the shipped en-fr, whatever the search path (got %s)" % got)
    got = model_of(minimt, [], {"HOME": home, "MINIMT_MODEL_PATH": b, "MINIMT_MODEL": "m1"})
    c.check(got == dirs["b/m1"], "MINIMT_MODEL=m1 is a name too: b/m1 (got %s)" % got)
    got = model_of(minimt, ["-m", "m1"], env, cwd=os.path.join(tmp, "cwd"))
    c.check(got == "status 1: minimt: error: m1/config.json: is missing",
            "-m m1 where ./m1 is a directory: that directory, a path as before (%s)" % got[:90])
    got = model_of(minimt, ["-m", "a/m1"], env, cwd=tmp)
    c.check(got == "a/m1", "-m a/m1 (a '/'): a path relative to here (got %s)" % got)
    got = model_of(minimt, ["-m", "not-a-model"], {"HOME": home, "MINIMT_MODEL_PATH": b})
    c.check("no model named 'not-a-model'" in got,
            "a folder without config.json is not a model (%s)" % got[:60])


def check_unknown_name(c, minimt, tmp):
    home = os.path.join(tmp, "home")
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    env = {"HOME": home, "MINIMT_MODEL_PATH": a + "::" + b + "/"}
    for args in (["translate", "-m", "de-en", "x"], ["info", "--model", "de-en"],
                 ["tokenize", "-m", "de-en", "x"], ["score", "-m", "de-en", "x", "y"]):
        status, out, err = run(minimt, args, env)
        want = ("minimt: error: no model named 'de-en': looked for de-en/config.json in "
                "%s (MINIMT_MODEL_PATH), %s (MINIMT_MODEL_PATH), "
                "%s/.local/share/minimt/models (user models), %s/models (build tree), "
                % (a, b, home, ROOT))
        c.check(status == 1 and out == "" and err.startswith(want) and err.count("\n") == 1
                and "(installed); 'minimt models' lists the models found\n" in err,
                "%s: status %d (1), one line naming every folder in order: %r"
                % (" ".join(args[:3]), status, err))
    status, out, err = run(minimt, ["info"], dict(env, MINIMT_MODEL="de-en"))
    c.check(status == 1 and err.startswith("minimt: error: MINIMT_MODEL=de-en: no model named"),
            "MINIMT_MODEL=de-en: says it came from MINIMT_MODEL (%r)" % err[:80])


def check_models_command(c, minimt, tmp, dirs):
    home = os.path.join(tmp, "home")
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    user = os.path.join(home, ".local/share/minimt/models")
    env = {"HOME": home, "MINIMT_MODEL_PATH": a + ":" + b}
    status, out, err = run(minimt, ["models"], env)
    # Only the folders made here and the source tree's (this machine may have installed models).
    rows = [line.split(None, 2) for line in out.splitlines()
            if line.split()[1].startswith((tmp + "/", ROOT + "/models/"))]
    got = [(r[0], r[1]) for r in rows]
    want = [("m1", a + "/m1"), ("broken", b + "/broken"), ("m1", b + "/m1"), ("m2", b + "/m2"),
            ("en-fr", user + "/en-fr"), ("m2", user + "/m2"), ("en-fr", SHIPPED)]
    c.check(status == 0 and got == want, "minimt models: every model, folder by folder, "
            "names sorted in each: %s" % got)
    hand = "encoder-decoder Transformer, 1 + 1 layers, post-norm, d_model 4, 2 heads, vocabulary 8/8"
    c.check(len(rows) == 7 and rows[0][2] == hand,
            "a model's summary: %r" % (rows[0][2] if rows else None))
    c.check(len(rows) == 7 and rows[2][2] == hand + " (hidden: --model m1 finds the one above)",
            "a name found again is marked hidden: %r" % (rows[2][2] if len(rows) > 2 else None))
    c.check(len(rows) == 7 and rows[1][2].startswith("unreadable: ") and "config.json" in rows[1][2],
            "a broken config.json is listed as unreadable: %r" % (rows[1][2] if len(rows) > 1 else 0))
    shipped = ("encoder-decoder Transformer, 3 + 3 layers, post-norm, d_model 192, 4 heads, "
               "vocabulary 800/1200 (hidden: --model en-fr finds the one above) (default)")
    c.check(len(rows) == 7 and rows[6][2] == shipped,
            "the shipped en-fr: its summary, hidden by the user's, the default: %r"
            % (rows[6][2] if len(rows) > 6 else None))
    status, out, _ = run(minimt, ["models", "--names"], env)
    c.check(status == 0 and out == "m1\nbroken\nm2\nen-fr\n", "--names: each name once: %r" % out)
    status, out, _ = run(minimt, ["models", "--path"], env)
    want = ("%s\tMINIMT_MODEL_PATH\n%s\tMINIMT_MODEL_PATH\n%s\tuser models\n%s/models\tbuild tree\n"
            % (a, b, user, ROOT))
    c.check(status == 0 and out.startswith(want) and out.count("\n") in (4, 5),
            "--path: the folders in order, with why: %r" % out)
    status, out, err = run(minimt, ["models", "--path"], {"HOME": tmp + "/nohome",
                                                          "MINIMT_MODEL_PATH": a + "/m1/vocab.spm"})
    c.check(out.startswith(a + "/m1/vocab.spm\tMINIMT_MODEL_PATH (not a directory)\n"
                           + tmp + "/nohome/.local/share/minimt/models\tuser models (missing)\n"),
            "--path says (not a directory) and (missing): %r" % out)
    for args, word in ((["--names", "--path"], "--names excludes --path"),
                       (["extra"], "extra"), (["--bogus"], "--bogus")):
        status, out, err = run(minimt, ["models"] + args, env)
        c.check(status == 2 and out == "" and word in err,
                "minimt models %s: usage error, status %d (2), %r" % (" ".join(args), status, err))


def main():
    minimt = support.minimt_path(__doc__)
    c = support.Tally(verbose=True)
    with support.scratch("models") as tmp:
        tmp = os.path.realpath(tmp)
        dirs = make_tree(tmp)
        check_search_order(c, minimt, tmp, dirs)
        check_unknown_name(c, minimt, tmp)
        check_models_command(c, minimt, tmp, dirs)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
