"""The pinned General_Category table behind Unicode property escapes (tokenguide.regex.properties),
checked against `unicodedata` where Python has the table's Unicode version (Pyodide's Python
3.14: this file is one of the core tests run there too), and the same sets on every runtime."""

from __future__ import annotations

import unicodedata

import pytest

from tokenguide.regex import unicode_categories
from tokenguide.regex.properties import UnknownPropertyError, property_ranges
from tokenguide.regex.ranges import contains

CATEGORIES = ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi",
              "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Co", "Cn")


def _size(ranges) -> int:
    return sum(hi - lo + 1 for lo, hi in ranges)


def test_the_table_is_unicodedata_of_its_version():
    if unicodedata.unidata_version != unicode_categories.UNICODE_VERSION:
        pytest.skip(f"this Python has Unicode {unicodedata.unidata_version}, the table {unicode_categories.UNICODE_VERSION}")
    sets = {cat: property_ranges(cat) for cat in CATEGORIES}
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue  # surrogates are in no tokenguide set
        cat = unicodedata.category(chr(cp))
        assert contains(sets[cat], cp), (hex(cp), cat)


def test_the_categories_partition_the_code_points_alike_on_every_runtime():
    """Every code point but the surrogates in exactly one category, and the sizes of Unicode
    16.0 (the same numbers in CPython and in Pyodide, whatever their own Unicode version)."""
    sizes = {cat: _size(property_ranges(cat)) for cat in CATEGORIES}
    assert sum(sizes.values()) == 0x110000 - 0x800
    assert _size(property_ranges("L")) == sum(sizes[c] for c in ("Lu", "Ll", "Lt", "Lm", "Lo"))
    assert _size(property_ranges("Assigned")) == 0x110000 - 0x800 - sizes["Cn"]
    assert (sizes["Nd"], sizes["Zs"], sizes["Lt"]) == (760, 17, 31)  # Unicode 16.0's counts


@pytest.mark.parametrize("name", ["Script=Latin", "Graph", "Lx", "gc=", "Alphabetic"])
def test_unknown_properties_raise(name):
    with pytest.raises(UnknownPropertyError):
        property_ranges(name)
