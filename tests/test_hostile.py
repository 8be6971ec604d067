"""The hostile catalogue: the rows. What runs them and what each must show is in
:mod:`tests.hostile_catalogue` (its docstring says what every row asserts)."""


from __future__ import annotations

import json
import signal
import sys
import time
import types
from pathlib import Path

import pytest

from sevendag_cli.limits import (
    INT_LIMIT,
    MAX_DATA_BYTES,
    MAX_DATA_DEPTH,
    MAX_ENCOUNTER_BYTES,
    MAX_ENCOUNTER_DEPTH,
    MAX_PROBLEMS,
    MAX_ROUND_CAP,
)
from sevendag_cli.text import is_visible
from tests.helpers import run
from tests.hostile_catalogue import (
    BIG,
    BRANNOC,
    D20,
    DEEP,
    ENC,
    EVIL,
    LONG,
    SEVENDAG,
    A,
    B,
    Hostile,
    a_thousand_and_one_files,
    batch_shrunk,
    big_int_sheet,
    both,
    case_params,
    check_case,
    chmod,
    created_through_dangling_link,
    d20_with,
    defender,
    encounter_json,
    fifo,
    fight_played,
    fighter_in,
    finished_d20,
    folder,
    hopeless,
    init_d20,
    init_sevendag,
    json_keeps_raw,
    json_rounds,
    jsonl_rounds,
    lines_are,
    link,
    listing_works,
    lock_removed,
    many_bands,
    many_items,
    many_keys,
    many_metals,
    many_sheets,
    matrix_of_a_and_b,
    mode_kept,
    nested,
    nested_json,
    new_file_mode,
    no_controls,
    problems_bounded,
    raw_number,
    rounds_in,
    sheet_a,
    short_line,
    shown,
    shown_escaped,
    sparse,
    stale_lock,
    stale_removed,
    stale_temporaries,
    through_chain,
    through_link,
    unix_socket,
    write,
)

CASES: list[Hostile] = [
    # --- 1. files that are not regular files, or are huge ---------------------------------
    Hostile("files", "lookup with a FIFO x.toml in the folder", ("fight", "Gandalf", "B"), 2,
            "not found", setup=fifo("x.toml"), process=True),
    Hostile("files", "listing with a FIFO x.toml in the folder", ("rulesets", "--json"), 0,
            setup=fifo("x.toml"), process=True, check=listing_works),
    Hostile("files", "listing with a FIFO among the fighters", ("rulesets", "--json"), 0,
            setup=both(folder("fighters"), fifo("fighters/zz.toml"), fifo("rulesets.toml")),
            process=True, check=listing_works),
    Hostile("files", "ruleset named in the folder is a FIFO", ("fight", "--ruleset", "x"), 2,
            "ruleset 'x': not found", setup=fifo("x.toml"), process=True),
    Hostile("files", "validate a FIFO", ("rulesets", "validate", "pipe.toml"), 1, "named pipe",
            setup=fifo("pipe.toml"), process=True,
            error_line=False),
    Hostile("files", "sheet is a FIFO", ("fight", "pipe.toml", "B"), 1,
            "pipe.toml: is a named pipe (FIFO), not a fighter file", setup=fifo("pipe.toml"),
            process=True),
    Hostile("files", "ruleset is a FIFO", ("fight", "--ruleset", "pipe.toml"), 1,
            "not a ruleset file", setup=fifo("pipe.toml"), process=True),
    Hostile("files", "show a FIFO", ("rulesets", "show", "pipe.toml"), 1, "named pipe",
            setup=fifo("pipe.toml"), process=True),
    Hostile("files", "sheet linked to a FIFO", ("fight", "l.toml", "B"), 1, "named pipe",
            setup=both(fifo("p"), link("l.toml", "p")), process=True),
    Hostile("files", "validate /dev/stdin (a pipe)", ("rulesets", "validate", "/dev/stdin"), 1,
            "named pipe", process=True, stdin=b'ruleset = "d20"\n',
            error_line=False),
    Hostile("files", "sheet linked to /dev/zero", ("fight", "z.toml", "B"), 1, "is a device",
            setup=link("z.toml", "/dev/zero"), process=True),
    Hostile("files", "validate a link to /dev/zero", ("rulesets", "validate", "z.toml"), 1,
            "device", setup=link("z.toml", "/dev/zero"), process=True,
            error_line=False),
    Hostile("files", "ruleset linked to /dev/urandom", ("fight", "--ruleset", "r.toml"), 1,
            "device", setup=link("r.toml", "/dev/urandom"), process=True),
    Hostile("files", "init with a sheet linked to /dev/null", ("init", "n.toml", "B"), 1,
            "device", setup=link("n.toml", "/dev/null")),
    Hostile("files", "sheet is a socket", ("fight", "s.toml", "B"), 1, "socket",
            setup=unix_socket("s.toml"), process=True),
    Hostile("files", "validate a socket", ("rulesets", "validate", "s.toml"), 1, "socket",
            setup=unix_socket("s.toml"), process=True,
            error_line=False),
    Hostile("files", "sheet is a folder", ("fight", "dir.toml", "B"), 1, "folder",
            setup=folder("dir.toml")),
    Hostile("files", "validate a folder", ("rulesets", "validate", "dir.toml"), 1,
            "is a folder", setup=folder("dir.toml"),
            error_line=False),
    Hostile("files", "folder named like a ruleset in the folder", ("fight", "--ruleset", "d"), 2,
            "ruleset 'd': not found", setup=folder("d.toml")),
    Hostile("files", "sheet is a dangling link", ("fight", "gone.toml", "B"), 2,
            "no such fighter file", setup=link("gone.toml", "nowhere.toml")),
    Hostile("files", "validate a dangling link", ("rulesets", "validate", "gone.toml"), 1,
            "no such file", setup=link("gone.toml", "nowhere.toml"),
            error_line=False),
    Hostile("files", "sheet is a loop of links", ("fight", "loop.toml", "B"), 1, "loop",
            setup=link("loop.toml", "loop.toml")),
    Hostile("files", "ruleset in a loop of two links", ("fight", "--ruleset", "l1.toml"), 1,
            "loop", setup=both(link("l1.toml", "l2.toml"), link("l2.toml", "l1.toml"))),
    Hostile("files", "unreadable sheet (mode 000)", ("fight", "a0.toml", "B"), 1,
            "permission denied", setup=both(write(a0_toml=A), chmod("a0.toml", 0)),
            unprivileged=True),
    Hostile("files", "unreadable ruleset (mode 000)", ("rulesets", "validate", "r0.toml"), 1,
            "permission denied", setup=both(write(r0_toml=D20), chmod("r0.toml", 0)),
            unprivileged=True,
            error_line=False),
    Hostile("files", "unreadable encounter (mode 0200)", ("round", "--seed", "1"), 1,
            "permission denied", setup=both(init_d20(), chmod(ENC, 0o200)), unprivileged=True),
    Hostile("files", "unreadable encounter, in French", ("round", "--seed", "1", "--lang", "fr"),
            1, "permission refusée", setup=both(init_d20(), chmod(ENC, 0o200)), unprivileged=True),
    Hostile("files", "sheet not UTF-8", ("fight", "bad.toml", "B"), 1, "not UTF-8",
            setup=write(bad_toml=b'ruleset = "d20"\nname = "\xff"\n')),
    Hostile("files", "sheet with a NUL byte", ("fight", "nul.toml", "B"), 1, "not valid TOML",
            setup=write(nul_toml=A.replace("race", "ra\0ce").encode())),
    Hostile("files", "ruleset with a NUL byte in a string", ("rulesets", "show", "r.toml"), 1,
            "not valid TOML", setup=write(r_toml=D20.replace("d20", "d\0" + "20", 1))),
    Hostile("files", "encounter with a NUL byte", ("round", "--seed", "1"), 1, "damaged",
            setup=both(init_d20(), lambda: Path(ENC).write_bytes(b"{\0}"))),
    Hostile("files", "encounter not UTF-8 (UTF-16)", ("undo",), 1, "UTF-8",
            setup=both(init_d20(), lambda: Path(ENC).write_bytes('{"a": 1}'.encode("utf-16")))),
    Hostile("files", "sheet over the size limit", ("fight", "big.toml", "B"), 1,
            f"the limit is {MAX_DATA_BYTES:,}",
            setup=write(big_toml=A + "# " + "x" * MAX_DATA_BYTES + "\n")),
    Hostile("files", "ruleset over the size limit (sparse)", ("fight", "--ruleset", "big.toml"),
            1, "too large", setup=sparse("big.toml", 8 * MAX_DATA_BYTES)),
    Hostile("files", "validate a file over the limit, in French",
            ("rulesets", "validate", "big.toml", "--lang", "fr"), 1, "trop grand",
            setup=sparse("big.toml", MAX_DATA_BYTES + 1),
            error_line=False),
    Hostile("files", "encounter over the size limit (sparse)", ("round", "--seed", "1"), 1,
            f"the limit is {MAX_ENCOUNTER_BYTES:,}", setup=sparse(ENC, MAX_ENCOUNTER_BYTES + 1)),
    Hostile("files", "encounter is a FIFO", ("round", "-e", "pipe.json"), 1,
            "pipe.json: is a named pipe (FIFO), not an encounter file", setup=fifo("pipe.json"),
            process=True),
    Hostile("files", "encounter is a FIFO: undo", ("undo", "-e", "pipe.json"), 1, "named pipe",
            setup=fifo("pipe.json"), process=True),
    Hostile("files", "encounter is a FIFO: wound", ("wound", "B", "3", "-e", "pipe.json"), 1,
            "named pipe", setup=fifo("pipe.json"), process=True),
    Hostile("files", "encounter is a FIFO: init --force",
            ("init", "--ruleset", "d20", "--seed", "1", "--force", "-e", "pipe.json"), 1,
            "named pipe", setup=fifo("pipe.json"), process=True),
    Hostile("files", "encounter linked to /dev/zero", ("round", "-e", "z.json"), 1, "device",
            setup=link("z.json", "/dev/zero"), process=True),
    Hostile("files", "encounter is a socket", ("round", "-e", "s.json"), 1, "socket",
            setup=unix_socket("s.json"), process=True),
    Hostile("files", "encounter is a loop of links", ("round", "-e", "loop.json"), 1, "loop",
            setup=link("loop.json", "loop.json")),
    Hostile("files", "a FIFO at the lock's place", ("round", "--seed", "1"), 1,
            "lock is a named pipe", setup=both(init_d20(), fifo(ENC + ".lock")), process=True),
    Hostile("files", "a folder at the lock's place", ("round", "--seed", "1"), 1,
            "lock is a folder", setup=both(init_d20(), folder(ENC + ".lock"))),
    Hostile("files", "a link at the lock's place", ("round", "--seed", "1"), 1,
            "lock is a symbolic link", setup=both(init_d20(), link(ENC + ".lock", "elsewhere"))),
    Hostile("files", "output sheet is a FIFO", ("new", "X", "-o", "pipe.toml", "--force"), 1,
            "named pipe", setup=fifo("pipe.toml"), process=True),
    Hostile("files", "output sheet linked to a FIFO", ("new", "X", "-o", "l.toml", "--force"), 1,
            "named pipe", setup=both(fifo("p"), link("l.toml", "p")), process=True),
    # --- 2. depth and size ----------------------------------------------------------------------
    Hostile("depth", "ruleset: arrays 100,000 deep", ("fight", "--ruleset", "deep.toml"), 1, DEEP,
            setup=write(deep_toml=nested(100_000))),
    Hostile("depth", "validate: arrays 100,000 deep, unclosed", ("rulesets", "validate", "d.toml"),
            1, DEEP, setup=write(d_toml="a = " + "[" * 100_000),
            error_line=False),
    Hostile("depth", "sheet: inline tables 50,000 deep", ("fight", "deep.toml", "B"), 1, DEEP,
            setup=write(deep_toml="a = " + "{b = " * 50_000 + "1" + "}" * 50_000 + "\n")),
    Hostile("depth", "sheet: a dotted key of 100,000 parts", ("fight", "dot.toml", "B"), 1, DEEP,
            setup=write(dot_toml="a" + ".a" * 100_000 + " = 1\n")),
    Hostile("depth", "ruleset: a header of 100,000 parts", ("rulesets", "validate", "h.toml"), 1,
            DEEP, setup=write(h_toml="[a" + ".a" * 100_000 + "]\n"),
            error_line=False),
    Hostile("depth", "ruleset: an array of tables 100,000 parts deep",
            ("rulesets", "show", "h.toml"), 1, DEEP,
            setup=write(h_toml="[[a" + ".a" * 100_000 + "]]\n")),
    Hostile("depth", "sheet one level too deep", ("fight", "d.toml", "B"), 1,
            f"nested deeper than {MAX_DATA_DEPTH} levels",
            setup=write(d_toml=nested(MAX_DATA_DEPTH + 1).replace("a =", "notes =") + A)),
    Hostile("depth", "sheet exactly at the depth limit is read", ("fight", "d.toml", "B", "--json"),
            0, setup=write(d_toml=nested(MAX_DATA_DEPTH).replace("a =", "notes =") + A),
            check=fight_played),
    Hostile("depth", "too deep, in French", ("rulesets", "validate", "d.toml", "--lang", "fr"), 1,
            f"plus de {MAX_DATA_DEPTH} niveaux", setup=write(d_toml=nested(10_000)),
            error_line=False),
    Hostile("depth", "encounter: arrays 100,000 deep", ("round", "--seed", "1"), 1, DEEP,
            setup=both(init_d20(), write(**{"encounter.sevendag.json": "[" * 100_000}))),
    Hostile("depth", "encounter: objects 100,000 deep", ("undo",), 1, DEEP,
            setup=both(init_d20(), write(**{"encounter.sevendag.json":
                                            '{"a":' * 100_000 + "1" + "}" * 100_000}))),
    Hostile("depth", "encounter one level too deep", ("round", "--seed", "1"), 1,
            f"nested deeper than {MAX_ENCOUNTER_DEPTH}",
            setup=encounter_json(nested_json(MAX_ENCOUNTER_DEPTH + 1))),
    Hostile("depth", "encounter holding a 5,000-digit number", ("round", "--seed", "1"), 1,
            "whole number beyond", setup=encounter_json(raw_number("9" * 5000))),
    Hostile("depth", "encounter holding 2**63", ("wound", "B", "3"), 1, "whole number beyond",
            setup=encounter_json(raw_number(str(INT_LIMIT + 1)))),
    Hostile("depth", "encounter holding -2**63 - 1", ("undo",), 1, "whole number beyond",
            setup=encounter_json(raw_number(str(-INT_LIMIT - 2)))),
    Hostile("depth", "encounter: a huge HP in the state", ("round", "--seed", "1"), 1,
            "whole number beyond",
            setup=encounter_json(lambda d: json.dumps(d).replace('"hp": 45', '"hp": 1' + "0" * 30))),
    *[Hostile("depth", f"encounter: HP {text} in the state and the sheet", ("round", "--seed", "1"),
              1, "whole number",
              setup=encounter_json(lambda d, t=text: json.dumps(d).replace('"hp": 45', f'"hp": {t}')))
      for text in ("1e999", "NaN", "-Infinity", "1.5")],
    Hostile("depth", "sheet: a 5,000-digit number", ("fight", "n.toml", "B"), 1,
            "whole number beyond", setup=write(n_toml=big_int_sheet("9" * 5000))),
    Hostile("depth", "sheet: hp = 2**63", ("fight", "n.toml", "B"), 1, "hp: a whole number beyond",
            setup=write(n_toml=big_int_sheet(str(INT_LIMIT + 1)))),
    Hostile("depth", "sheet: a 5,000-digit hexadecimal", ("rulesets", "validate", "n.toml"), 1,
            "hp: a whole number beyond", setup=write(n_toml=big_int_sheet("0x" + "f" * 5000)),
            error_line=False),
    Hostile("depth", "ruleset: a huge number in an array", ("fight", "--ruleset", "r.toml"), 1,
            "beyond", setup=write(r_toml=D20 + "\nnotes = [1, -" + "9" * 30 + "]\n")),
    Hostile("depth", "sheet with 100,000 unknown keys", ("fight", "k.toml", "B"), 1,
            "k0: unknown key", setup=write(k_toml=many_keys(100_000))),
    Hostile("depth", "validate 100,000 unknown keys: the first ones, then a count",
            ("rulesets", "validate", "k.toml"), 1, setup=write(k_toml=many_keys(100_000)),
            error_line=False, check=problems_bounded),
    Hostile("depth", "ruleset with 20,000 wound bands", ("rulesets", "validate", "w.toml"), 1,
            setup=write(w_toml=many_bands(20_000)), error_line=False,
            check=lambda top, out: None if len(out.stdout.splitlines()) <= MAX_PROBLEMS + 1
            else pytest.fail(out.stdout[:500])),
    Hostile("depth", "10,000 hands holding none of 10,000 items", ("fight", "q.toml", "brannoc"),
            1, "no item 'nothing'", setup=write(q_toml=many_items(10_000)), check=short_line(400)),
    Hostile("depth", "an unknown metal among 10,000", ("fight", "x.toml", "Ysolde", "-r", "r.toml"),
            1, "more)", setup=write(r_toml=many_metals(10_000),
                                    x_toml=BRANNOC.replace('"iron"', '"mithril"')),
            check=short_line(400)),
    Hostile("depth", "not found among 300 sheets", ("fight", "Gandalf", "B"), 2, "more)",
            setup=many_sheets(300), check=short_line(400)),
    # --- 3. paths ---------------------------------------------------------------------------------
    *[Hostile("paths", f"{cmd[0]} -e {shown}", (*cmd, "-e", path), 1, "is a folder")
      for cmd in (("round", "--seed", "1"), ("init", "--ruleset", "d20", "--seed", "1"), ("undo",),
                  ("wound", "B", "3"))
      for path, shown in ((".", "."), ("/", "/"), ("", "''"))],
    Hostile("paths", "init --force -e a folder",
            ("init", "--ruleset", "d20", "--seed", "1", "--force", "-e", "SOMEDIR"), 1,
            "SOMEDIR: is a folder", setup=folder("SOMEDIR")),
    Hostile("paths", "round -e a folder", ("round", "-e", "SOMEDIR"), 1, "is a folder",
            setup=folder("SOMEDIR")),
    Hostile("paths", "wound -e a folder, in French", ("wound", "B", "3", "-e", "D", "--lang", "fr"),
            1, "D : est un dossier", setup=folder("D")),
    Hostile("paths", "new -o a folder --force", ("new", "X", "-o", "SOMEDIR", "--force"), 1,
            "SOMEDIR: is a folder", setup=folder("SOMEDIR")),
    Hostile("paths", "new -o a missing folder", ("new", "X", "-o", "nowhere/x.toml"), 1,
            "cannot write"),
    Hostile("paths", "new -o a path through a file", ("new", "X", "-o", "f.txt/x.toml"), 1,
            "not a folder", setup=write(f_txt="x")),
    Hostile("paths", "new -o a name too long", ("new", "X", "-o", LONG + ".toml"), 1,
            "longer than the system allows"),
    Hostile("paths", "new -o a name too long --force", ("new", "X", "-o", LONG + ".toml", "--force"),
            1, "longer than the system allows"),
    Hostile("paths", "new -o a read-only sheet --force", ("new", "X", "-o", "ro.toml", "--force"),
            1, "read-only", setup=both(write(ro_toml=A), chmod("ro.toml", 0o444))),
    Hostile("paths", "init -e a name too long", ("init", "--ruleset", "d20", "-e", LONG), 1,
            "longer than the system allows"),
    Hostile("paths", "init -e a path longer than PATH_MAX",
            ("init", "--ruleset", "d20", "-e", "a/" * 2100 + "x"), 1, "longer than the system"),
    Hostile("paths", "init -e in a missing folder", ("init", "--ruleset", "d20", "-e", "no/e.json"),
            1, "lock"),
    Hostile("paths", "init -e through a file", ("init", "--ruleset", "d20", "-e", "f.txt/e.json"),
            1, "not a folder", setup=write(f_txt="x")),
    Hostile("paths", "round -e through a file", ("round", "-e", "f.txt/e.json"), 1,
            "not a folder", setup=write(f_txt="x")),
    *[Hostile("paths", f"{cmd[0]} -e a name too long", (*cmd, "-e", LONG), 1,
              "longer than the system allows")
      for cmd in (("round", "--seed", "1"), ("undo",), ("wound", "B", "3"))],
    Hostile("paths", "a fighter name of 10,000 characters", ("fight", "a" * 10_000, "B"), 2,
            "not found"),
    Hostile("paths", "a ruleset name of 10,000 characters", ("fight", "--ruleset", "r" * 10_000),
            2, "not found"),
    Hostile("paths", "a sheet path too long", ("fight", LONG + ".toml", "B"), 1,
            "longer than the system allows"),
    Hostile("paths", "validate a path too long", ("rulesets", "validate", LONG + ".toml"), 1,
            "longer than the system allows",
            error_line=False),
    Hostile("paths", "show a path through a file", ("rulesets", "show", "f.txt/r.toml"), 1,
            "not a folder", setup=write(f_txt="x")),
    Hostile("paths", "an example fighter of 10,000 characters", ("fight", "--ruleset", "r.toml"),
            1, "not found", setup=write(r_toml=D20.replace('["A", "B"]', f'["{"x" * 10_000}", "B"]'))),
    Hostile("paths", "an example fighter holding a NUL", ("fight", "--ruleset", "r.toml"), 1,
            "not found", setup=write(r_toml=D20.replace('["A", "B"]', '["a\\u0000b", "B"]'))),
    # --- 8. encounter file semantics ---------------------------------------------------------------
    Hostile("encounter", "round through a symbolic link", ("round", "-e", "link.json", "--seed", "2"),
            0, setup=both(folder("real"), init_d20("real/enc.json"), link("link.json", "real/enc.json")),
            check=through_link),
    Hostile("encounter", "round through a chain of links", ("round", "-e", "l1.json", "--seed", "2"),
            0, setup=both(folder("real"), init_d20("real/enc.json"), link("l2.json", "real/enc.json"),
                          link("l1.json", "l2.json")), check=through_chain),
    Hostile("encounter", "init through a dangling link",
            ("init", "--ruleset", "d20", "--seed", "1", "-e", "link.json"), 0,
            setup=both(folder("real"), link("link.json", "real/enc.json")),
            check=created_through_dangling_link),
    Hostile("encounter", "round keeps mode 0640", ("round", "--seed", "2"), 0,
            setup=both(init_d20(), chmod(ENC, 0o640)), check=mode_kept(0o640)),
    Hostile("encounter", "round keeps mode 0664", ("round", "--seed", "2"), 0,
            setup=both(init_d20(), chmod(ENC, 0o664)), check=mode_kept(0o664)),
    Hostile("encounter", "a new encounter gets 0666 less the umask",
            ("init", "--ruleset", "d20", "--seed", "1"), 0, check=new_file_mode),
    Hostile("encounter", "round on a read-only encounter", ("round", "--seed", "2"), 1,
            "read-only", setup=both(init_d20(), chmod(ENC, 0o444))),
    Hostile("encounter", "wound on a read-only encounter", ("wound", "B", "3"), 1, "read-only",
            setup=both(init_d20(), chmod(ENC, 0o444))),
    Hostile("encounter", "undo on a read-only encounter", ("undo",), 1, "read-only",
            setup=both(init_d20(), chmod(ENC, 0o444))),
    Hostile("encounter", "init --force on a read-only finished encounter",
            ("init", "--ruleset", "d20", "--seed", "1", "--force"), 1, "read-only",
            setup=both(finished_d20, chmod(ENC, 0o444))),
    Hostile("encounter", "round on a read-only encounter through a link",
            ("round", "-e", "link.json"), 1, "link.json: the encounter file is read-only",
            setup=both(init_d20(), chmod(ENC, 0o400), link("link.json", ENC))),
    Hostile("encounter", "read-only, in French", ("round", "--lang", "fr"), 1, "lecture seule",
            setup=both(init_d20(), chmod(ENC, 0o444))),
    Hostile("encounter", "round in a folder it cannot write in",
            ("round", "--seed", "2", "-e", "ro/" + ENC), 1,
            "permission denied", setup=both(folder("ro"), init_d20("ro/" + ENC), chmod("ro", 0o555)),
            unprivileged=True),
    Hostile("encounter", "stale temporary files are removed by a save", ("round", "--seed", "2"), 0,
            setup=stale_temporaries, check=stale_removed),
    Hostile("encounter", "a failed command removes no stale temporary file", ("round", "--dice", "99"),
            2, "face 1 is 99", setup=stale_temporaries),
    Hostile("encounter", "a lock left by a killed command does not block", ("round", "--seed", "2"),
            0, setup=stale_lock, check=lock_removed),
    Hostile("encounter", "a damaged encounter leaves no lock behind", ("round", "--seed", "2"), 1,
            "damaged", setup=both(init_d20(), write(**{"encounter.sevendag.json": "{"}))),
    Hostile("encounter", "a refused round leaves no lock behind", ("round", "--seed", "2"), 1,
            "over", setup=finished_d20),
    Hostile("encounter", "no encounter: no lock made", ("round", "--seed", "2"), 1,
            "no encounter here"),
    # --- 4. numbers beyond the engines ----------------------------------------------------------
    *[Hostile("numbers", f"weapon damage past 64 bits{shown}", ("fight", "n.toml", "B", *extra), 1,
              "beyond the bound of ±9,223,372,036,854,775,807",
              setup=write(n_toml=sheet_a(damage='"1d6 * 999999999 * 999999999 * 99"')))
      for shown, extra in (("", ("--seed", "1")), (", --json", ("--json",)),
                           (", --runs", ("--runs", "100")), (", --exact", ("--exact",)))],
    Hostile("numbers", "validate lists the formula beyond the bound", ("rulesets", "validate", "n.toml"),
            1, setup=write(n_toml=sheet_a(damage='"1d6 * 999999999 * 999999999 * 99"')),
            error_line=False,
            check=lambda top, out: None if "weapon.damage: can reach" in out.stdout
            else pytest.fail(out.stdout)),
    Hostile("numbers", "a ruleset formula past the bound for some sheet", ("fight", "-r", "r.toml"),
            1, "formulas.attack: can reach",
            setup=write(r_toml=d20_with(attack='"1d20 + bba + hp * hp * hp * hp"'))),
    *[Hostile("numbers", f"damage sets past the bound on a critical{shown}", ("fight", "n.toml", "B", *extra),
              1, "could pass the bound",
              setup=write(n_toml=sheet_a(damage=f'"1d6 + {BIG}"', crit_factor="10")))
      for shown, extra in (("", ()), (", --runs", ("--runs", "100")), (", --exact", ("--exact",)))],
    Hostile("numbers", "init refuses damage past the bound", ("init", "n.toml", "B", "--seed", "1"), 1,
            "could pass the bound", setup=write(n_toml=sheet_a(damage=f'"1d6 + {BIG}"', crit_factor="10"))),
    Hostile("numbers", "damage_bonus and damage together past the bound",
            ("fight", "-r", "r.toml", "--runs", "100"), 1, "could pass the bound",
            setup=write(r_toml=d20_with(damage_bonus=f'"mod(str) + {BIG} * 9"'))),
    Hostile("numbers", "exact odds and a million damage", ("fight", "n.toml", "B", "--exact"), 2,
            "at most 1,000,000 damage", setup=write(n_toml=sheet_a(damage='"1d6 * 1000000"'))),
    Hostile("numbers", "roll past the bound", ("roll", "999999999*999999999*999999999"), 2,
            "beyond the bound"),
    Hostile("numbers", "roll past the bound below zero", ("roll", "--", "-(999999999 * 999999999 * 99)"), 2,
            "can reach"),
    Hostile("numbers", "--cap of 70 bits", ("fight", "--cap", str(2**70)), 2, "--cap"),
    Hostile("numbers", "--cap past the longest fight", ("fight", "--cap", str(MAX_ROUND_CAP + 1)), 2,
            f"at most {MAX_ROUND_CAP:,}"),
    Hostile("numbers", "--cap negative with --runs", ("fight", "--runs", "10", "--cap", "-5"), 2,
            "--cap -5"),
    Hostile("numbers", "--cap of 5,000 digits", ("fight", "--cap", "9" * 5000), 2, "--cap"),
    Hostile("numbers", "--runs of 100 bits", ("fight", "--runs", str(2**100)), 2, "--runs"),
    Hostile("numbers", "--seed below zero", ("fight", "--runs", "10", "--seed", "-1"), 2, "--seed -1"),
    Hostile("numbers", "--seed past 64 bits on round", ("round", "--seed", str(2**64)), 2, "--seed",
            setup=init_d20()),
    Hostile("numbers", "--classify past the bound", ("wound", "--classify", str(10**30)), 2,
            "--classify"),
    Hostile("numbers", "wound amount past the bound", ("wound", "B", str(10**30)), 2, "AMOUNT",
            setup=init_d20()),
    Hostile("numbers", "wound heal past the bound", ("wound", "B", str(-10**30)), 2, "AMOUNT",
            setup=init_d20()),
    Hostile("numbers", "wound amount of 5,000 digits", ("wound", "B", "9" * 5000), 2, "AMOUNT",
            setup=init_d20(), check=short_line(400)),
    Hostile("numbers", "a face of 30 digits", ("round", "--dice", "9" * 30), 2, "face",
            setup=init_d20()),
    Hostile("numbers", "Sevendag: a die of 2**62 sides", ("fight", "q.toml", "Ysolde"), 1,
            "hands[0].die", setup=write(q_toml=BRANNOC.replace("die = 10", f"die = {2**62}"))),
    Hostile("numbers", "Sevendag: a speed of 10**18", ("fight", "q.toml", "Ysolde"), 1, "speed",
            setup=write(q_toml=BRANNOC.replace("speed = 3", f"speed = {10**18}"))),
    Hostile("numbers", "Sevendag: a penalty of 10**15", ("fight", "-r", "r.toml"), 1, "penalty",
            setup=write(r_toml=SEVENDAG.replace("penalty = 6", f"penalty = {10**15}"))),
    Hostile("numbers", "Sevendag: a speed roll past the bound", ("fight", "-r", "r.toml"), 1,
            "formulas.speed_roll: can reach",
            setup=write(r_toml=SEVENDAG.replace('speed_roll = "1d20 + speed"',
                                                f'speed_roll = "1d20 + speed * {BIG} * 99"'))),
    Hostile("numbers", "a round cap of 100,000 in a ruleset", ("fight", "-r", "r.toml"), 1,
            "options.round_cap", setup=write(r_toml=d20_with(round_cap="100000"))),
    # --- 5. output streams ---------------------------------------------------------------------
    *[Hostile("streams", f"fight{shown} with stdout closed", ("fight", "--seed", "1", *extra), 1,
              "standard output is closed", redirect=">&-")
      for shown, extra in (("", ()), (" --json", ("--json",)), (" --jsonl", ("--jsonl",)))],
    *[Hostile("streams", f"fight{shown} on /dev/full", ("fight", "--seed", "1", *extra), 1,
              "no space left", redirect=">/dev/full")
      for shown, extra in (("", ()), (" --json", ("--json",)), (" --jsonl", ("--jsonl",)))],
    *[Hostile("streams", f"fight{shown}, the reader closes at once", ("fight", "--seed", "1", *extra),
              141, early=True, quiet=True)
      for shown, extra in (("", ()), (" --json", ("--json",)), (" --jsonl", ("--jsonl",)))],
    Hostile("streams", "fight --runs --json on /dev/full", ("fight", "--runs", "2000", "--json"), 1,
            "no space left", redirect=">/dev/full"),
    Hostile("streams", "fight --runs, the reader closes at once", ("fight", "--runs", "2000"), 141,
            early=True, quiet=True),
    Hostile("streams", "fight --exact on /dev/full", ("fight", "--ruleset", "d20", "--exact"), 1,
            "no space left", redirect=">/dev/full"),
    Hostile("streams", "rulesets --json on /dev/full", ("rulesets", "--json"), 1, "no space left",
            redirect=">/dev/full"),
    Hostile("streams", "schema, the reader closes at once", ("schema", "fight"), 141, early=True,
            quiet=True),
    Hostile("streams", "--help on /dev/full", ("--help",), 1, "no space left", redirect=">/dev/full"),
    Hostile("streams", "roll with stdout closed", ("roll", "3d6", "--seed", "1"), 1,
            "standard output is closed", redirect=">&-"),
    Hostile("streams", "round --json, the reader closes at once: saved, quiet",
            ("round", "--seed", "2", "--json"), 141, setup=init_d20(), early=True, quiet=True,
            saved=True),
    Hostile("streams", "round on /dev/full: saved, and the line says so", ("round", "--seed", "2"), 1,
            "the encounter was saved to encounter.sevendag.json, but the output could not be written",
            setup=init_d20(), redirect=">/dev/full", saved=True),
    Hostile("streams", "round on /dev/full, in French", ("round", "--seed", "2", "--lang", "fr"), 1,
            "la rencontre a été enregistrée", setup=init_d20(), redirect=">/dev/full", saved=True),
    Hostile("streams", "round --jsonl with stdout closed: nothing done", ("round", "--seed", "2", "--jsonl"),
            1, "nothing was done", setup=init_d20(), redirect=">&-"),
    Hostile("streams", "init on /dev/full: saved", ("init", "--ruleset", "d20", "--seed", "1"), 1,
            "the encounter was saved", redirect=">/dev/full", saved=True),
    Hostile("streams", "wound --json on /dev/full: saved", ("wound", "B", "3", "--json"), 1,
            "the encounter was saved", setup=init_d20(), redirect=">/dev/full", saved=True),
    Hostile("streams", "undo, the reader closes at once: saved, quiet", ("undo",), 141,
            setup=both(init_d20(), lambda: run("wound", "B", "3")), early=True, quiet=True, saved=True),
    Hostile("streams", "an error with stderr closed", ("fight", "Nobody", "B"), 2, redirect="2>&-"),
    Hostile("streams", "an error with stderr full", ("fight", "Nobody", "B"), 2, redirect="2>/dev/full"),
    Hostile("streams", "fight --json with stderr closed", ("fight", "--seed", "1", "--json"), 0,
            redirect="2>&-", check=fight_played),
    Hostile("streams", "round with stderr full: the notes are lost, the round is saved",
            ("round", "--seed", "2"), 0, setup=init_d20(), redirect="2>/dev/full",
            check=lambda top, out: None if rounds_in(top / ENC) == 1 else pytest.fail("not saved")),
    Hostile("streams", "round with stdin closed asks nothing", ("round", "--seed", "2"), 0,
            setup=init_sevendag, redirect="<&-",
            check=lambda top, out: None if rounds_in(top / ENC) == 1 else pytest.fail("not saved")),
    Hostile("streams", "stdout and stderr both full", ("fight", "--seed", "1"), 1,
            redirect=">/dev/full 2>/dev/full"),
    # --- 6. Ctrl-C at any moment ---------------------------------------------------------------------
    *[Hostile("interrupt", f"fight --json, Ctrl-C after {int(d * 1000)} ms",
              ("fight", "--seed", "1", "--json"), 130, "interrupted", sigint_after=d)
      for d in (0.0, 0.01, 0.03, 0.06, 0.1, 0.15)],
    *[Hostile("interrupt", f"round, Ctrl-C after {int(d * 1000)} ms", ("round", "--seed", "2"), 130,
              "interrupted", setup=init_d20(), sigint_after=d)
      for d in (0.0, 0.02, 0.05, 0.1, 0.15, 0.25)],
    Hostile("interrupt", "init, Ctrl-C after 50 ms", ("init", "--ruleset", "d20", "--seed", "1"), 130,
            "interrupted", sigint_after=0.05),
    Hostile("interrupt", "rulesets, Ctrl-C after 40 ms", ("rulesets",), 130, "interrupted",
            sigint_after=0.04),
    Hostile("interrupt", "fight --runs of ten million, Ctrl-C after 1 s",
            ("fight", "--runs", "10000000", "--seed", "1", "--json"), 130, "interrupted",
            sigint_after=1.0),
    Hostile("interrupt", "a long fight shown, Ctrl-C after 300 ms",
            ("fight", "h1.toml", "h2.toml", "--cap", str(MAX_ROUND_CAP), "--seed", "1"), 130,
            "interrupted", setup=write(h1_toml=hopeless("Hob"), h2_toml=hopeless("Nob")),
            sigint_after=0.3),
    # --- 7. terminal and log injection --------------------------------------------------------------
    Hostile("injection", "a sheet name with escapes and a newline: the display",
            ("fight", "e.toml", "B", "--seed", "1"), 0,
            setup=write(e_toml=sheet_a(name=f'"A{EVIL}"')), check=shown_escaped),
    Hostile("injection", "the same name in JSON stays raw", ("fight", "e.toml", "B", "--seed", "1", "--json"),
            0, setup=write(e_toml=sheet_a(name=f'"A{EVIL}"')), check=json_keeps_raw),
    Hostile("injection", "the same name in --runs", ("fight", "e.toml", "B", "--runs", "100"), 0,
            setup=write(e_toml=sheet_a(name=f'"A{EVIL}"')), check=shown_escaped),
    Hostile("injection", "the same name in --exact", ("fight", "e.toml", "B", "--exact"), 0,
            setup=write(e_toml=sheet_a(name=f'"A{EVIL}"')), check=shown_escaped),
    Hostile("injection", "the same name in the listing", ("rulesets",), 0,
            setup=write(e_toml=sheet_a(name=f'"A{EVIL}"')), check=shown_escaped),
    Hostile("injection", "a weapon name with escapes", ("fight", "e.toml", "B", "--seed", "1"), 0,
            setup=write(e_toml=A.replace('name = "club (gourdin)"', f'name = "club{EVIL}"')),
            check=no_controls),
    Hostile("injection", "an item label with escapes (Sevendag)",
            ("fight", "e.toml", "Ysolde", "--seed", "1"), 0,
            setup=write(e_toml=BRANNOC.replace('label = { en = "iron longsword", fr = "épée longue de fer" }',
                                            f'label = "sword{EVIL}"')),
            check=no_controls),
    Hostile("injection", "a ruleset label with escapes: show", ("rulesets", "show", "r.toml"), 0,
            setup=write(r_toml=d20_with(label=f'"L{EVIL}"')),
            check=shown_escaped),
    Hostile("injection", "an unknown key with a newline: one error line",
            ("fight", "k.toml", "B"), 1, "unknown key",
            setup=write(k_toml=A.replace("[weapon]", f'"k{EVIL}" = 1\n[weapon]'))),
    Hostile("injection", "validate: one line per problem", ("rulesets", "validate", "k.toml"), 1,
            setup=write(k_toml=A.replace("[weapon]", f'"k{EVIL}" = 1\n"j{EVIL}" = 2\n[weapon]')),
            error_line=False,
            check=lambda top, out: lines_are(2)(top, out)),
    Hostile("injection", "an item key with a newline held by no hand", ("fight", "k.toml", "Ysolde"), 1,
            "\\nsevendag: error: forged",
            setup=write(k_toml=BRANNOC.replace('holds = "sword"', f'holds = "s{EVIL}"'))),
    Hostile("injection", "a fighter name typed with a newline", ("fight", "X\nsevendag: error: forged", "B"),
            2, "not found"),
    Hostile("injection", "a ruleset name typed with an escape", ("fight", "--ruleset", "r\x1b[2J"), 2,
            "r\\x1b[2J"),
    Hostile("injection", "an option value with a newline", ("fight", "--seed", "1\nsevendag: error: x"), 2,
            "\\n"),
    Hostile("injection", "a command name with a newline", ("x\nsevendag: error: forged",), 2, "\\n"),
    Hostile("injection", "wound a fighter named with a newline", ("wound", "B\nsevendag: error: x", "3"), 2,
            "\\n", setup=init_d20()),
    Hostile("injection", "an encounter path with a newline", ("round", "-e", "a\nsevendag: error: x.json"), 1,
            "\\n"),
    Hostile("injection", "a roll label with an escape", ("roll", "esc\x1b[31m: 1d6", "--seed", "1"), 0,
            check=no_controls),
    Hostile("injection", "a bidirectional override in a name", ("fight", "e.toml", "B", "--seed", "1"), 0,
            setup=write(e_toml=sheet_a(name='"A\\u202eevil"')),
            check=shown("\\u202e")),
    Hostile("injection", "a line separator in a name", ("fight", "e.toml", "B", "--seed", "1"), 0,
            setup=write(e_toml=sheet_a(name='"A\\u2028B2"')), check=no_controls),
    Hostile("injection", "a C1 control (CSI) in a name", ("fight", "e.toml", "B", "--seed", "1"), 0,
            setup=write(e_toml=sheet_a(name='"A\\u009b2J"')), check=no_controls),
    Hostile("injection", "Rich markup in a name is text", ("rulesets",), 0,
            setup=write(m_toml=sheet_a(name='"[/]bad[red]x"')),
            check=lambda top, out: None if "[/]bad[red]x" in out.stdout else pytest.fail(out.stdout)),
    Hostile("injection", "a new sheet named with an escape and a newline",
            ("new", "X\x1b[2J\nY", "-o", "x.toml", "--ruleset", "d20", "--seed", "1"), 0,
            check=fighter_in("x.toml", "X\x1b[2J\nY")),
    Hostile("injection", "an error from a round: names escaped", ("round", "--allocate", "Z\x1b[2J=attack"),
            2, "Z\\x1b[2J", setup=init_sevendag),
    # --- 9. valid fights that are pathological ---------------------------------------------------------
    *[Hostile("endless", f"two fighters who only defend{shown}", ("fight", "w1.toml", "w2.toml", *extra), 1,
              "ever attacks", setup=write(w1_toml=defender("Wall"), w2_toml=defender("Moat")))
      for shown, extra in (("", ()), (", --json", ("--json",)), (", --runs", ("--runs", "1000")),
                           (", --exact", ("--exact",)))],
    Hostile("endless", "no wound band takes a fighter out", ("fight", "-r", "r.toml", "--runs", "100"), 1,
            "no wound band", setup=write(r_toml=SEVENDAG.replace("out_after = 1", "out_after = 0"))),
    Hostile("endless", "d20: every save dodges", ("fight", "-r", "r.toml"), 1, "can ever damage",
            setup=write(r_toml=d20_with(save_natural_success="1"))),
    Hostile("endless", "d20: every save dodges, --runs", ("fight", "-r", "r.toml", "--runs", "1000"), 1,
            "can ever damage", setup=write(r_toml=d20_with(save_natural_success="1"))),
    Hostile("endless", "d20: no hit deals damage", ("fight", "a0.toml", "b0.toml", "-r", "r.toml"), 1,
            "can ever damage",
            setup=write(r_toml=d20_with(min_damage="0"),
                        a0_toml=sheet_a(damage='"1d2 - 50"'),
                        b0_toml=B.replace('damage = "1d8"', 'damage = "1d2 - 50"'))),
    Hostile("endless", "one side can damage: the fight is played", ("fight", "w1.toml", "Ysolde", "--json"),
            0, setup=write(w1_toml=defender("Wall")), check=fight_played),
    Hostile("endless", "a long fight streamed to its cap (--jsonl)",
            ("fight", "h1.toml", "h2.toml", "--cap", "300", "--seed", "1", "--jsonl"), 0,
            setup=write(h1_toml=hopeless("Hob"), h2_toml=hopeless("Nob")), check=jsonl_rounds(300)),
    Hostile("endless", "a long fight to its cap (--json)",
            ("fight", "h1.toml", "h2.toml", "--cap", "300", "--seed", "1", "--json"), 0,
            setup=write(h1_toml=hopeless("Hob"), h2_toml=hopeless("Nob")), check=json_rounds(300)),
    Hostile("endless", "a 1000d1000 weapon: --runs in smaller batches",
            ("fight", "k.toml", "B", "--runs", "20000", "--json"), 0,
            setup=write(k_toml=sheet_a(damage='"1000d1000"')), check=batch_shrunk),
    # --- matrix: folders of sheets -------------------------------------------------------------
    Hostile("files", "matrix: a FIFO and a link to /dev/zero among a folder's sheets",
            ("matrix", "roster", "--json"), 0,
            setup=both(write(**{"roster/a.toml": A, "roster/b.toml": B}), fifo("roster/p.toml"),
                       link("roster/z.toml", "/dev/zero")), process=True, check=matrix_of_a_and_b),
    Hostile("files", "matrix: a sheet that is a FIFO", ("matrix", "pipe.toml", "a"), 1,
            "pipe.toml: is a named pipe (FIFO), not a fighter file", setup=fifo("pipe.toml"),
            process=True),
    Hostile("files", "matrix: a folder of more than 1,000 .toml files", ("matrix", "many", "a"), 1,
            "more than 1,000 .toml files", setup=a_thousand_and_one_files),
    Hostile("paths", "matrix: a folder that is a loop of links", ("matrix", "loop/", "a"), 1,
            "too many symbolic links", setup=link("loop", "loop")),
]


def test_the_catalogue_covers_each_class() -> None:
    kinds = [c.kind for c in CASES]
    assert len(CASES) >= 150
    for kind in ("files", "depth", "paths", "encounter"):
        assert kinds.count(kind) >= 15, (kind, kinds.count(kind))
    for kind in ("numbers", "streams", "interrupt", "injection", "endless"):
        assert kinds.count(kind) >= 8, (kind, kinds.count(kind))
    assert len({c.name for c in CASES}) == len(CASES)  # ids are unique


@pytest.mark.parametrize("case", case_params(CASES))
def test_hostile(case: Hostile, tmp_path: Path) -> None:
    check_case(case, tmp_path)


def test_prompts_show_names_and_labels_with_controls_visible() -> None:
    """Class 7 at the terminal's prompts (``round`` asks on stderr): names, item labels and
    technique labels from files reach the prompts with their control characters visible, and
    a refusal explained between two prompts is one line."""
    from msgspec.structs import replace

    from sevendag_cli.sevendag.prompts import ask_sevendag_choices
    from sevendag_cli.sevendag.rules import Technique
    from sevendag_cli.sevendag.state import initial_state
    from tests.sevendag_helpers import RS, make

    evil = "\x1b[2J\nsevendag: error: forged"
    a = make(f"Ann{evil}", [{"die": 10, "holds": "w"}, {"die": 8, "holds": "s"}],
             {"w": {"metal": "iron", "label": f"sword{evil}"}, "s": {"kind": "shield"}})
    b = make("Bob", [{"die": 6}])
    rs = replace(RS, techniques={"feint": Technique("feint", {"en": f"feint{evil}"}, {"en": ""},
                                                     1, 0, 1)})
    state = initial_state(a, b, a.name)
    prompts: list[str] = []
    warnings: list[str] = []
    answers = iter(["n", "attack,attack", "", "", "", ""])  # a shield attacking is refused

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    ask_sevendag_choices(rs, a, b, state, None, {}, {}, "en", read=read, warn=warnings.append)
    shown = "".join(prompts) + "".join(warnings)
    assert "\\x1b[2J\\nsevendag: error: forged" in shown
    assert "sword\\x1b[2J" in shown and "feint\\x1b[2J" in shown
    assert all(is_visible(p) for p in prompts), prompts
    assert all(is_visible(w) for w in warnings), warnings
    assert len([w for w in warnings if "only defends" in w]) == 1, warnings  # the one refusal


def test_the_start_up_interrupt_line_is_the_catalogue_line() -> None:
    """``start.py`` writes its Ctrl-C line without importing the catalogue: the same words."""
    import importlib

    before = signal.getsignal(signal.SIGINT)
    try:
        start = importlib.import_module("sevendag_cli.start")  # installs its handler...
    finally:
        signal.signal(signal.SIGINT, before)  # ...which pytest's own Ctrl-C must not keep
    from sevendag_cli.errors import Msg

    for lang in ("en", "fr"):
        assert start._EARLY_LINE[lang] == f"sevendag: error: {Msg('cli.interrupted').render(lang)}\n"


def test_a_ctrl_c_lost_in_a_callback_is_delivered_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A KeyboardInterrupt raised in a weak reference's callback (where a Ctrl-C may land while
    a module is imported) is not printed as "Exception ignored" and lost: the command's main
    thread gets it again, and the command ends as on any Ctrl-C."""
    import importlib
    import weakref

    before = signal.getsignal(signal.SIGINT)
    try:
        start = importlib.import_module("sevendag_cli.start")
    finally:
        signal.signal(signal.SIGINT, before)
    monkeypatch.setattr(sys, "unraisablehook", start._unraisable)

    class Held:
        pass

    def interrupted(_ref: object) -> None:
        raise KeyboardInterrupt

    held = Held()
    ref = weakref.ref(held, interrupted)
    monkeypatch.setattr(start, "_lost_interrupt", False)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a command
    try:
        with pytest.raises(KeyboardInterrupt):
            del held  # the callback runs: its KeyboardInterrupt cannot be raised from there...
            for _ in range(200):  # ...and comes back to this thread a moment later
                time.sleep(0.01)
    finally:
        signal.signal(signal.SIGINT, handler)
    assert ref() is None and start._lost_interrupt
    reported: list[object] = []
    monkeypatch.setattr(sys, "__unraisablehook__", reported.append)
    start._unraisable(types.SimpleNamespace(exc_type=ValueError))  # type: ignore[arg-type]
    assert len(reported) == 1  # anything else: as Python would


LOST_INTERRUPT = """
import sys, time, weakref
from sevendag_cli import cli, start

def command():  # a Ctrl-C landing in a weak reference's callback, then work that goes on
    class Held:
        pass

    def interrupted(_ref):
        raise KeyboardInterrupt

    held = Held()
    ref = weakref.ref(held, interrupted)
    del held
    time.sleep(float(sys.argv[1]))
    print("finished")
    sys.exit(0)

cli.main = command
sys.argv = ["sevendag", "fight"]
start.main()
"""


@pytest.mark.slow
@pytest.mark.parametrize("work", [0.5, 0.0])
def test_a_command_whose_ctrl_c_python_could_not_raise_ends_interrupted(work: float) -> None:
    """Run as the console script: the Ctrl-C comes back during the work that goes on (or, the
    command over first, ends it as interrupted): one line, exit 130, nothing "ignored"."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", LOST_INTERRUPT, str(work)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "sevendag: error: interrupted\n"
    if work:
        assert done.stdout == ""  # stopped during the work


PRESSED_AGAIN = """
import sys
from sevendag_cli import cli, start
from sevendag_cli.failure import fail, interrupted

def command():  # the command's own line, then a Ctrl-C again while it winds down
    try:
        fail(interrupted("en"), 130)
    finally:
        raise KeyboardInterrupt

cli.main = command
sys.argv = ["sevendag", "matrix"]
start.main()
"""


def test_ctrl_c_pressed_again_while_the_command_winds_down_adds_no_line() -> None:
    """As the console script: the command ended as interrupted with its own line, and a
    second Ctrl-C lands while it winds down (workers stopped, files closed): exit 130, that
    one line only."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", PRESSED_AGAIN], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "sevendag: error: interrupted\n"


def test_ctrl_c_pressed_again_inside_the_root_group_adds_no_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The same within the root group (the second Ctrl-C in what holds the run's width and
    memory guard), and the next run in the same process still gets its own line."""
    from collections.abc import Iterator
    from contextlib import contextmanager

    from sevendag_cli import cli
    from sevendag_cli.failure import fail, interrupted

    def invoke(_self: object, _ctx: object) -> None:
        fail(interrupted("en"), 130)

    @contextmanager
    def again() -> Iterator[None]:
        try:
            yield
        finally:
            raise KeyboardInterrupt

    monkeypatch.setattr(cli.typer.core.TyperGroup, "invoke", invoke)
    monkeypatch.setattr(cli, "numpy_guard", again)
    for _ in range(2):
        with pytest.raises(SystemExit) as ended:
            cli.app(["status"])
        assert ended.value.code == 130
        assert capsys.readouterr().err == "sevendag: error: interrupted\n"


def test_the_rows_are_named_once() -> None:
    from tests.hostile_catalogue import Hostile, Outcome
    from tests.hostile_rows import CASES as MORE

    names = [c.name for c in (*CASES, *MORE)]
    assert len(set(names)) == len(names)
    assert all(isinstance(c, Hostile) for c in MORE)
    assert Outcome  # the row's checks receive the catalogue's outcome
