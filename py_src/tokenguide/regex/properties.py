"""Unicode property escapes of ECMA-262 (`\\p{L}`, `\\p{gc=Nd}`, `\\P{Letter}`) as code point ranges.

JSON Schema `pattern`s are ECMA-262 regexes, and schemas in the wild use property escapes (AWS
CloudFormation's tag values: `^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$`). The General_Category of
every code point comes from the pinned table `unicode_categories` (one Unicode version on every
runtime); the names are ECMA-262's: a category's short or long name, alone or after
`General_Category=` / `gc=`, and the binary properties `Any`, `ASCII` and `Assigned`. Other
properties (Script, Alphabetic, ...) have no table here and are refused by name. Surrogates are
left out of every set, as everywhere in tokenguide.
"""

from __future__ import annotations

import functools

from . import ranges as R
from . import unicode_categories

__all__ = ["GENERAL_CATEGORY_NAMES", "UnknownPropertyError", "property_ranges", "UNICODE_VERSION"]

UNICODE_VERSION = unicode_categories.UNICODE_VERSION

#: long name -> short name of each General_Category value (ECMA-262's table of value aliases)
_LONG = {
    "Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo",
    "Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
    "Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
    "Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
    "Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf", "Other_Punctuation": "Po",
    "Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So",
    "Separator": "Z", "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
    "Other": "C", "Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
    "Unassigned": "Cn",
}
_GROUPS = {"L": ("Lu", "Ll", "Lt", "Lm", "Lo"), "LC": ("Lu", "Ll", "Lt"), "M": ("Mn", "Mc", "Me"),
           "N": ("Nd", "Nl", "No"), "P": ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"),
           "S": ("Sm", "Sc", "Sk", "So"), "Z": ("Zs", "Zl", "Zp"), "C": ("Cc", "Cf", "Cs", "Co", "Cn")}
#: every General_Category value name ECMA-262 accepts: short, long and alias names
GENERAL_CATEGORY_NAMES: frozenset[str] = frozenset(_LONG) | frozenset(_LONG.values())


class UnknownPropertyError(ValueError):
    """A property escape whose name is not one of those above; the message says which."""


@functools.lru_cache(maxsize=1)
def _by_category() -> dict[str, R.Ranges]:
    """Two-letter category -> its code points, from the table's runs (`ranges.normalize` drops
    the surrogates: Cs is empty)."""
    found: dict[str, list[tuple[int, int]]] = {}
    cp = 0
    for word in "".join(unicode_categories.RUNS).split():
        length, cat = word.split(":")
        n = int(length, 36)
        found.setdefault(cat, []).append((cp, cp + n - 1))
        cp += n
    if cp != 0x110000:
        raise AssertionError(f"unicode_categories covers {cp:#x} code points, not 0x110000")
    return {cat: R.normalize(rs) for cat, rs in found.items()}


@functools.lru_cache(maxsize=128)
def property_ranges(name: str) -> R.Ranges:
    """The code points of property escape `\\p{name}` (without surrogates); raises
    UnknownPropertyError for a name ECMA-262 does not give or this module has no table for."""
    cats = _by_category()
    if name == "Any":
        return R.ALL
    if name == "ASCII":
        return R.normalize([(0, 0x7F)])
    if name == "Assigned":
        return R.complement(cats["Cn"])
    value = name
    if "=" in name:
        key, value = name.split("=", 1)
        if key not in ("General_Category", "gc"):
            raise UnknownPropertyError(f"the property {key!r} (in \\p{{{name}}}) is not supported: only "
                                       "General_Category values and Any, ASCII, Assigned are")
    short = _LONG.get(value, value)
    if short in _GROUPS:
        return R.normalize([r for c in _GROUPS[short] for r in cats.get(c, ())])
    if short in cats:
        return cats[short]
    raise UnknownPropertyError(f"\\p{{{name}}} names no General_Category value (ECMA-262's, such as L, "
                               "Letter, Nd, gc=Lu) nor Any, ASCII or Assigned")
