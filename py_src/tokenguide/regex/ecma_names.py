"""Name tables for `ecma_syntax`: the property names `\\p{...}` accepts and the identifier
characters of group names, for ECMA-262 11th edition (ES2020) patterns with the `u` flag.

Kept apart from the parser so that the parser reads as grammar; all names here are facts (from
ECMA-262's tables and the Unicode Character Database), pinned to the Unicode version of
`unicode_categories` (16.0).
"""

from __future__ import annotations

import functools
from bisect import bisect_right

from . import properties
from . import ranges as R

__all__ = ["GENERAL_CATEGORY_VALUES", "BINARY_PROPERTIES", "SCRIPT_VALUES", "PROPERTY_KEYS",
           "PATTERN_SYNTAX", "OTHER_ID_START", "OTHER_ID_CONTINUE", "property_escape_names",
           "id_start_ranges", "id_continue_ranges", "first_in_ranges"]

#: every General_Category value name ECMA-262 accepts (short, long and alias names)
GENERAL_CATEGORY_VALUES: frozenset[str] = properties.GENERAL_CATEGORY_NAMES

#: ECMA-262's table of binary properties (names and aliases) usable alone in `\p{...}`: the
#: ES2020 table plus the short aliases EBase, EComp, EMod, EPres, ExtPict that ES2021 added and
#: Node 20 accepts. `WSpace` (a UCD alias of White_Space) is in no edition's table: V8 accepts it
#: anyway; it is left out here, so a pattern using it is refused (the safe side).
BINARY_PROPERTIES: frozenset[str] = frozenset("""
    ASCII ASCII_Hex_Digit AHex Alphabetic Alpha Any Assigned Bidi_Control Bidi_C
    Bidi_Mirrored Bidi_M Case_Ignorable CI Cased Changes_When_Casefolded CWCF
    Changes_When_Casemapped CWCM Changes_When_Lowercased CWL Changes_When_NFKC_Casefolded CWKCF
    Changes_When_Titlecased CWT Changes_When_Uppercased CWU Dash Default_Ignorable_Code_Point DI
    Deprecated Dep Diacritic Dia Emoji Emoji_Component EComp Emoji_Modifier EMod
    Emoji_Modifier_Base EBase Emoji_Presentation EPres Extended_Pictographic ExtPict
    Extender Ext Grapheme_Base Gr_Base Grapheme_Extend Gr_Ext Hex_Digit Hex
    IDS_Binary_Operator IDSB IDS_Trinary_Operator IDST ID_Continue IDC ID_Start IDS
    Ideographic Ideo Join_Control Join_C Logical_Order_Exception LOE Lowercase Lower Math
    Noncharacter_Code_Point NChar Pattern_Syntax Pat_Syn Pattern_White_Space Pat_WS
    Quotation_Mark QMark Radical Regional_Indicator RI Sentence_Terminal STerm Soft_Dotted SD
    Terminal_Punctuation Term Unified_Ideograph UIdeo Uppercase Upper Variation_Selector VS
    White_Space space XID_Continue XIDC XID_Start XIDS
""".split())

#: Script / Script_Extensions values (long name, then aliases), from the npm package
#: unicode-property-value-aliases-ecmascript 2.2.1 (PropertyValueAliases.txt of Unicode 17.0)
#: minus the four scripts new in Unicode 17.0 (Beria_Erfe, Sidetic, Tai_Yo, Tolong_Siki), so
#: Unicode 16.0's set. Katakana_Or_Hiragana/Hrkt is left out: ES2020's table of script values
#: does not have it (ES2023 added it) and V8 refuses it.
SCRIPT_VALUES: frozenset[str] = frozenset(name for word in """
    Adlam/Adlm Ahom Anatolian_Hieroglyphs/Hluw Arabic/Arab Armenian/Armn Avestan/Avst Balinese/Bali
    Bamum/Bamu Bassa_Vah/Bass Batak/Batk Bengali/Beng Bhaiksuki/Bhks Bopomofo/Bopo Brahmi/Brah
    Braille/Brai Buginese/Bugi Buhid/Buhd Canadian_Aboriginal/Cans Carian/Cari
    Caucasian_Albanian/Aghb Chakma/Cakm Cham Cherokee/Cher Chorasmian/Chrs Common/Zyyy
    Coptic/Copt/Qaac Cuneiform/Xsux Cypriot/Cprt Cypro_Minoan/Cpmn Cyrillic/Cyrl Deseret/Dsrt
    Devanagari/Deva Dives_Akuru/Diak Dogra/Dogr Duployan/Dupl Egyptian_Hieroglyphs/Egyp Elbasan/Elba
    Elymaic/Elym Ethiopic/Ethi Garay/Gara Georgian/Geor Glagolitic/Glag Gothic/Goth Grantha/Gran
    Greek/Grek Gujarati/Gujr Gunjala_Gondi/Gong Gurmukhi/Guru Gurung_Khema/Gukh Han/Hani Hangul/Hang
    Hanifi_Rohingya/Rohg Hanunoo/Hano Hatran/Hatr Hebrew/Hebr Hiragana/Hira Imperial_Aramaic/Armi
    Inherited/Zinh/Qaai Inscriptional_Pahlavi/Phli Inscriptional_Parthian/Prti Javanese/Java
    Kaithi/Kthi Kannada/Knda Katakana/Kana Kawi Kayah_Li/Kali
    Kharoshthi/Khar Khitan_Small_Script/Kits Khmer/Khmr Khojki/Khoj Khudawadi/Sind Kirat_Rai/Krai
    Lao/Laoo Latin/Latn Lepcha/Lepc Limbu/Limb Linear_A/Lina Linear_B/Linb Lisu Lycian/Lyci
    Lydian/Lydi Mahajani/Mahj Makasar/Maka Malayalam/Mlym Mandaic/Mand Manichaean/Mani Marchen/Marc
    Masaram_Gondi/Gonm Medefaidrin/Medf Meetei_Mayek/Mtei Mende_Kikakui/Mend Meroitic_Cursive/Merc
    Meroitic_Hieroglyphs/Mero Miao/Plrd Modi Mongolian/Mong Mro/Mroo Multani/Mult Myanmar/Mymr
    Nabataean/Nbat Nag_Mundari/Nagm Nandinagari/Nand New_Tai_Lue/Talu Newa Nko/Nkoo Nushu/Nshu
    Nyiakeng_Puachue_Hmong/Hmnp Ogham/Ogam Ol_Chiki/Olck Ol_Onal/Onao Old_Hungarian/Hung
    Old_Italic/Ital Old_North_Arabian/Narb Old_Permic/Perm Old_Persian/Xpeo Old_Sogdian/Sogo
    Old_South_Arabian/Sarb Old_Turkic/Orkh Old_Uyghur/Ougr Oriya/Orya Osage/Osge Osmanya/Osma
    Pahawh_Hmong/Hmng Palmyrene/Palm Pau_Cin_Hau/Pauc Phags_Pa/Phag Phoenician/Phnx
    Psalter_Pahlavi/Phlp Rejang/Rjng Runic/Runr Samaritan/Samr Saurashtra/Saur Sharada/Shrd
    Shavian/Shaw Siddham/Sidd SignWriting/Sgnw Sinhala/Sinh Sogdian/Sogd Sora_Sompeng/Sora
    Soyombo/Soyo Sundanese/Sund Sunuwar/Sunu Syloti_Nagri/Sylo Syriac/Syrc Tagalog/Tglg
    Tagbanwa/Tagb Tai_Le/Tale Tai_Tham/Lana Tai_Viet/Tavt Takri/Takr Tamil/Taml Tangsa/Tnsa
    Tangut/Tang Telugu/Telu Thaana/Thaa Thai Tibetan/Tibt Tifinagh/Tfng Tirhuta/Tirh Todhri/Todr
    Toto Tulu_Tigalari/Tutg Ugaritic/Ugar Unknown/Zzzz Vai/Vaii Vithkuqi/Vith Wancho/Wcho
    Warang_Citi/Wara Yezidi/Yezi Yi/Yiii Zanabazar_Square/Zanb
""".split() for name in word.split("/"))

#: the property names allowed before `=` in `\p{Name=Value}`, each with its set of values
PROPERTY_KEYS: dict[str, frozenset[str]] = {
    "General_Category": GENERAL_CATEGORY_VALUES, "gc": GENERAL_CATEGORY_VALUES,
    "Script": SCRIPT_VALUES, "sc": SCRIPT_VALUES,
    "Script_Extensions": SCRIPT_VALUES, "scx": SCRIPT_VALUES,
}

#: Pattern_Syntax (PropList.txt; the property is immutable across Unicode versions)
PATTERN_SYNTAX: tuple[tuple[int, int], ...] = (
    (0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x5E), (0x60, 0x60), (0x7B, 0x7E), (0xA1, 0xA7),
    (0xA9, 0xA9), (0xAB, 0xAC), (0xAE, 0xAE), (0xB0, 0xB1), (0xB6, 0xB6), (0xBB, 0xBB),
    (0xBF, 0xBF), (0xD7, 0xD7), (0xF7, 0xF7), (0x2010, 0x2027), (0x2030, 0x203E),
    (0x2041, 0x2053), (0x2055, 0x205E), (0x2190, 0x245F), (0x2500, 0x2775), (0x2794, 0x2BFF),
    (0x2E00, 0x2E7F), (0x3001, 0x3003), (0x3008, 0x3020), (0x3030, 0x3030), (0xFD3E, 0xFD3F),
    (0xFE45, 0xFE46),
)
#: Pattern_White_Space (PropList.txt, immutable)
PATTERN_WHITE_SPACE: tuple[tuple[int, int], ...] = (
    (0x09, 0x0D), (0x20, 0x20), (0x85, 0x85), (0x200E, 0x200F), (0x2028, 0x2029))
#: Other_ID_Start and Other_ID_Continue of Unicode 16.0 (PropList.txt)
OTHER_ID_START: tuple[int, ...] = (0x1885, 0x1886, 0x2118, 0x212E, 0x309B, 0x309C)
OTHER_ID_CONTINUE: tuple[int, ...] = (0xB7, 0x387, *range(0x1369, 0x1372), 0x19DA, 0x200C, 0x200D,
                                      0x30FB, 0xFF65)

Ranges = tuple[tuple[int, int], ...]


@functools.lru_cache(maxsize=1)
def property_escape_names() -> tuple[str, ...]:
    """Every text that may stand between the braces of `\\p{...}`, sorted (for prefix search)."""
    names = set(GENERAL_CATEGORY_VALUES) | set(BINARY_PROPERTIES)
    for key, values in PROPERTY_KEYS.items():
        names.update(f"{key}={value}" for value in values)
    return tuple(sorted(names))


def _id_ranges(categories: tuple[str, ...], others: tuple[int, ...]) -> list[tuple[int, int]]:
    parts = [r for cat in categories for r in properties.property_ranges(cat)]
    parts += [(c, c) for c in others]
    return list(R.difference(R.normalize(parts), R.union(PATTERN_SYNTAX, PATTERN_WHITE_SPACE)))


@functools.lru_cache(maxsize=1)
def id_start_ranges() -> Ranges:
    """Code points that may start a group name: ID_Start (L + Nl + Other_ID_Start minus
    Pattern_Syntax and Pattern_White_Space, as UAX #31 derives it), `$` and `_`."""
    ids = _id_ranges(("L", "Nl"), OTHER_ID_START)
    return R.normalize(ids + [(0x24, 0x24), (0x5F, 0x5F)])


@functools.lru_cache(maxsize=1)
def id_continue_ranges() -> Ranges:
    """Code points that may continue a group name: ID_Continue (ID_Start + Mn + Mc + Nd + Pc +
    Other_ID_Continue, minus Pattern_Syntax and Pattern_White_Space), `$`, ZWNJ and ZWJ."""
    ids = _id_ranges(("L", "Nl", "Mn", "Mc", "Nd", "Pc"), OTHER_ID_START + OTHER_ID_CONTINUE)
    return R.normalize(ids + [(0x24, 0x24), (0x200C, 0x200D)])


def first_in_ranges(ranges: Ranges, lo: int, hi: int) -> int | None:
    """The smallest code point of `ranges` within lo..hi, or None."""
    i = bisect_right(ranges, (lo, 0x110000)) - 1
    if i >= 0 and ranges[i][1] >= lo:
        return lo if lo <= hi else None
    i += 1
    if i < len(ranges) and ranges[i][0] <= hi:
        return ranges[i][0]
    return None
