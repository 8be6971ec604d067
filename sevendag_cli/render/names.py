"""Text from a file (a fighter's name, a label, a key) shown safely: control characters made visible.

No Rich here: the plain outputs (notes on stderr, ``status`` and ``log`` lines)
use it as well as the Rich display.
"""

from __future__ import annotations

import unicodedata

_INVISIBLE = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def shown(text: object) -> str:
    """``text`` with its control and format characters written as escapes (``\\x1b``).

    ``Brannoc\\x1b[2J`` stays on its line and clears nothing; letters, accents
    and spaces (the no-break space too) are kept as they are.
    """
    value = str(text)
    if value.isprintable():
        return value
    return "".join(c if c == " " or unicodedata.category(c) not in _INVISIBLE
                   else c.encode("unicode_escape").decode("ascii") for c in value)
