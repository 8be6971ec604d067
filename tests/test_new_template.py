"""``sevendag new`` shows a Sevendag sheet's optional rules: the technique rule (S-05)
and the yield rule (S-03), commented out, each under a line saying what it does in the
language of ``--lang``; the file as written loads unchanged, and so does the example once
uncommented."""

from __future__ import annotations

from pathlib import Path

import pytest

from sevendag_cli.rules import load_fighter, load_ruleset
from sevendag_cli.sevendag.rules import SevendagFighter, TechniqueRule
from tests.helpers import run


def written(name: str, *extra: str) -> Path:
    result = run("new", name, "--ruleset", "sevendag", *extra)
    assert result.exit_code == 0, result.stderr
    return Path(f"{name.lower()}.toml")


def uncommented(path: Path) -> Path:
    """The sheet with the examples of its optional rules made real."""
    lines = path.read_text("utf-8").splitlines(keepends=True)
    out = [line[2:] if line.startswith(("# technique = ", "# yield = ")) else line
           for line in lines]
    assert out != lines
    target = path.with_name("ruled-" + path.name)
    target.write_text("".join(out), "utf-8")
    return target


def fighter(path: Path) -> SevendagFighter:
    f = load_fighter(str(path), load_ruleset("sevendag"))
    assert isinstance(f, SevendagFighter)
    return f


@pytest.mark.parametrize(("lang", "words"), [("en", ("start a technique", "yield the first attack")),
                                             ("fr", ("lancer une technique",
                                                     "céder la première attaque"))])
def test_S03_S05_template_shows_the_optional_rules_explained(lang: str, words: tuple[str, str]) -> None:
    path = written("Korr", "--lang", lang)
    text = path.read_text("utf-8")
    assert '# technique = { name = "feint", when = "attacking" }' in text
    assert '# yield = "behind"' in text
    lines = text.splitlines()
    for example, word in zip(("# technique = ", "# yield = "), words, strict=True):
        at = next(i for i, line in enumerate(lines) if line.startswith(example))
        assert lines[at - 1].startswith("# ") and word in lines[at - 1]  # the line above says it
    assert "feint, guard, charge" in text  # the ruleset's techniques, to choose from
    other = "lancer" if lang == "en" else "start a"
    assert other not in text


def test_S03_S05_template_loads_as_written_and_uncommented() -> None:
    path = written("Korr")
    assert run("rulesets", "validate", str(path)).exit_code == 0
    plain = fighter(path)
    assert plain.plays_plain
    ruled = uncommented(path)
    result = run("rulesets", "validate", str(ruled))
    assert result.exit_code == 0, result.stdout + result.stderr
    f = fighter(ruled)
    assert f.technique_rule == TechniqueRule("feint", "attacking")
    assert f.yield_rule == "behind" and not f.plays_plain


def test_S05_a_technique_named_oddly_still_reads_back() -> None:
    """The example names the ruleset's first technique, escaped for TOML; the list in the
    comment has its control characters visible (it stays one comment line)."""
    source = load_ruleset("sevendag").path
    text = Path(source).read_text("utf-8")
    odd = 'fe"in\\t'
    text = text.replace("[techniques.feint]", '[techniques."fe\\"in\\\\t"]', 1)
    Path("odd.toml").write_text(text, "utf-8")
    result = run("new", "Korr", "--ruleset", "odd.toml")
    assert result.exit_code == 0, result.stderr
    sheet = Path("korr.toml").read_text("utf-8")
    assert all(line.startswith("#") or "=" in line or line.startswith("[") or not line
               for line in sheet.splitlines())
    ruled = uncommented(Path("korr.toml"))
    f = load_fighter(str(ruled), load_ruleset("odd.toml"))
    assert isinstance(f, SevendagFighter)
    assert f.technique_rule == TechniqueRule(odd, "attacking")


def test_d20_template_is_unchanged_by_the_language() -> None:
    en = run("new", "Aela", "--ruleset", "d20", "--seed", "3", "-o", "en.toml")
    fr = run("new", "Aela", "--ruleset", "d20", "--seed", "3", "-o", "fr.toml", "--lang", "fr")
    assert en.exit_code == fr.exit_code == 0
    assert Path("en.toml").read_bytes() == Path("fr.toml").read_bytes()
