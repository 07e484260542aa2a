"""`format` values as regexes over the string content (between the quotes), exact to their RFCs.

Each regex is written from the ABNF it names (ABNF literals are case-insensitive, so ``T``,
``Z``, the duration letters and ``IPv6:`` match either case) and reads the canonical
json.dumps(ensure_ascii=False) text of the string: a quoted email local part's ``"`` and ``\\``
appear escaped, and json-pointer characters go through `json_chars`. What a regex cannot say
is a length limit (`FORMAT_LIMIT`, added by the emitter as a lookahead); `FORMAT_WIDTH` is the
length range a regex implies by itself. Unknown formats are annotations; `KNOWN_FORMATS` not in
`format_regex` are refused (named) unless lenient.
"""

from __future__ import annotations

from ..regex import ranges as R
from .text import alt, json_chars

__all__ = ["FORMAT_LIMIT", "FORMAT_WIDTH", "KNOWN_FORMATS", "SUPPORTED_FORMATS", "format_regex"]

# Standard formats a validator may check; unknown formats are annotations.
KNOWN_FORMATS = frozenset({
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex",
})

# ---- RFC 3339 §5.6: full-date, full-time, date-time ----------------------------------------------
_DAY_31 = "(?:0[1-9]|[12][0-9]|3[01])"
_DATE = ("(?:[0-9]{4}-(?:(?:0[13578]|1[02])-" + _DAY_31 + "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
         "|02-(?:0[1-9]|1[0-9]|2[0-8]))"
         "|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)")
_HOUR = "(?:[01][0-9]|2[0-3])"
_MINUTE = "[0-5][0-9]"
# time-second 60 is allowed at any time of day: which instants are leap seconds is a table
# (RFC 3339 §5.7, Appendix D), and "23:59:60 in UTC" alone would cost ~1,440 automaton states.
_TIME = (f"{_HOUR}:{_MINUTE}:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?"
         f"(?:[Zz]|[+-]{_HOUR}:{_MINUTE})")

# ---- RFC 3339 Appendix A: duration ------------------------------------------------------------------
_N = "[0-9]+"
_DUR_SECOND = f"{_N}[Ss]"
_DUR_MINUTE = f"{_N}[Mm](?:{_DUR_SECOND})?"
_DUR_HOUR = f"{_N}[Hh](?:{_DUR_MINUTE})?"
_DUR_TIME = f"[Tt](?:{_DUR_HOUR}|{_DUR_MINUTE}|{_DUR_SECOND})"
_DUR_MONTH = f"{_N}[Mm](?:{_N}[Dd])?"
_DUR_DATE = f"(?:{_N}[Dd]|{_DUR_MONTH}|{_N}[Yy](?:{_DUR_MONTH})?)(?:{_DUR_TIME})?"
_DURATION = f"[Pp](?:{_DUR_DATE}|{_DUR_TIME}|{_N}[Ww])"

# ---- IPv4 (dotted quad, no leading zeros) and IPv6 (RFC 4291 §2.2 = RFC 3986 IPv6address) ----------
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = f"{_OCTET}(?:\\.{_OCTET}){{3}}"
_H16 = "[0-9A-Fa-f]{1,4}"


def _ipv6(ls32_v4: str) -> str:
    """RFC 3986's IPv6address: the nine shapes of where "::" stands (if anywhere)."""
    h = _H16
    ls32 = f"(?:{h}:{h}|{ls32_v4})"
    forms = [f"(?:{h}:){{6}}{ls32}", f"::(?:{h}:){{5}}{ls32}", f"(?:{h})?::(?:{h}:){{4}}{ls32}"]
    for n, tail in ((1, f"(?:{h}:){{3}}{ls32}"), (2, f"(?:{h}:){{2}}{ls32}"), (3, f"{h}:{ls32}"),
                    (4, ls32), (5, h), (6, "")):
        forms.append(f"(?:(?:{h}:){{0,{n}}}{h})?::{tail}")
    return "(?:" + "|".join(forms) + ")"


_IPV6 = _ipv6(_IPV4)

# ---- RFC 1123 host names (the 253-character total is FORMAT_LIMIT) ----------------------------------
_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = f"{_LABEL}(?:\\.{_LABEL})*"

# ---- RFC 5321 §4.1.2 Mailbox ----------------------------------------------------------------------
_ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_QTEXT = r"[ !#-\[\]-~]"  # %d32-33 / %d35-91 / %d93-126
_QUOTED = r'\\"(?:' + _QTEXT + r'|\\\\(?:' + _QTEXT + r'|\\["\\]))*\\"'  # DQUOTE, \" and \\ as JSON writes them
_SUB_DOMAIN = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_SNUM = "(?:[01][0-9]{2}|2[0-4][0-9]|25[0-5]|[0-9]{1,2})"  # 1*3DIGIT, value 0-255
_SMTP_V4 = f"{_SNUM}(?:\\.{_SNUM}){{3}}"


def _smtp_ipv6() -> str:
    """RFC 5321 IPv6-addr: full, or "::" with at most 6 (4 before an IPv4 tail) other groups."""
    h = _H16
    forms = [f"{h}(?::{h}){{7}}", f"{h}(?::{h}){{5}}:{_SMTP_V4}"]
    for n, tail in ((6, None), (4, _SMTP_V4)):
        for left in range(n + 1):
            lhs = "" if left == 0 else (h if left == 1 else f"{h}(?::{h}){{{left - 1}}}")
            room = n - left
            if tail is None:
                rhs = "" if room == 0 else f"(?:{h}(?::{h}){{0,{room - 1}}})?"
            else:
                rhs = ("" if room == 0 else f"(?:{h}:){{0,{room}}}") + tail
            forms.append(f"{lhs}::{rhs}")
    return "(?:" + "|".join(forms) + ")"


# Standardized-tag (Ldh-str) other than the IPv6 tag (any case), whose syntax is IPv6-addr.
_LD, _LDH = "[A-Za-z0-9]", "[A-Za-z0-9-]"
_TAG = alt([f"{_LDH}{{0,2}}{_LD}", f"{_LDH}{{4,}}{_LD}", f"[A-HJ-Za-hj-z0-9-]{_LDH}{{2}}{_LD}",
            f"[Ii][A-OQ-Za-oq-z0-9-]{_LDH}{_LD}", f"[Ii][Pp][A-UW-Za-uw-z0-9-]{_LD}", "[Ii][Pp][Vv][A-Za-z0-57-9]"])
_DCONTENT = r'(?:[!#-Z\^-~]|\\")'  # %d33-90 / %d94-126 ('"' escaped)
_ADDRESS_LITERAL = (f"\\[(?:{_SMTP_V4}|[Ii][Pp][Vv]6:{_smtp_ipv6()}|{_TAG}:{_DCONTENT}+)\\]")
_EMAIL = f"(?:{_ATOM}(?:\\.{_ATOM})*|{_QUOTED})@(?:{_SUB_DOMAIN}(?:\\.{_SUB_DOMAIN})*|{_ADDRESS_LITERAL})"

# ---- RFC 3986 URI / URI-reference and RFC 3987 IRI / IRI-reference ----------------------------------
_UCS = "\\u00a0-\\ud7ff\\uf900-\\ufdcf\\ufdf0-\\uffef" + "".join(
    f"\\U{(p << 16):08x}-\\U{(p << 16) + 0xFFFD:08x}" for p in range(1, 14)) + "\\U000e1000-\\U000efffd"
_IPRIVATE = "\\ue000-\\uf8ff\\U000f0000-\\U000ffffd\\U00100000-\\U0010fffd"
_PCT = "%[0-9A-Fa-f]{2}"
_SUB_DELIMS = "!$&'()*+,;="


def _uri(iri: bool, reference: bool) -> str:
    """URI (RFC 3986 §3) or IRI (RFC 3987 §2.2), or their -reference forms (§4.1 / §2.2)."""
    unres = "A-Za-z0-9\\-._~" + (_UCS if iri else "")

    def chars(extra: str = "", more: str = "") -> str:
        return f"(?:[{unres}{_SUB_DELIMS}{extra}{more}]|{_PCT})"

    pchar = chars(":@")
    segment = pchar + "*"
    tail = f"(?:/{segment})*"
    ip_literal = f"\\[(?:{_IPV6}|[Vv][0-9A-Fa-f]+\\.[A-Za-z0-9\\-._~{_SUB_DELIMS}:]+)\\]"
    authority = f"(?:{chars(':')}*@)?(?:{ip_literal}|{chars()}*)(?::[0-9]*)?"
    query = f"(?:\\?{chars(':@/?', _IPRIVATE if iri else '')}*)?"
    fragment = f"(?:#{chars(':@/?')}*)?"
    absolute = f"/(?:{pchar}+{tail})?"
    scheme = "[A-Za-z][A-Za-z0-9+\\-.]*"
    hier = f"(?://{authority}{tail}|{absolute}|{pchar}+{tail})?"
    out = f"{scheme}:{hier}{query}{fragment}"
    if reference:
        relative = f"(?://{authority}{tail}|{absolute}|{chars('@')}+{tail})?{query}{fragment}"
        out = f"(?:{out}|{relative})"
    return out


# ---- RFC 6570 URI Template (level 4) --------------------------------------------------------------
_VARCHAR = f"(?:[A-Za-z0-9_]|{_PCT})"
_VARSPEC = f"{_VARCHAR}(?:\\.?{_VARCHAR})*(?::[1-9][0-9]{{0,3}}|\\*)?"
_URI_TEMPLATE = (f"(?:[!#$&(-;=?-\\[\\]_a-z~{_UCS}{_IPRIVATE}]|{_PCT}"
                 f"|\\{{[+#./;?&=,!@|]?{_VARSPEC}(?:,{_VARSPEC})*\\}})*")

# ---- RFC 6901 JSON Pointer and Relative JSON Pointer ------------------------------------------------
_UNESCAPED = json_chars(R.complement(R.normalize([(0x2F, 0x2F), (0x7E, 0x7E)])))
_JSON_POINTER = f"(?:/(?:{_UNESCAPED}|~[01])*)*"
_NON_NEG = "(?:0|[1-9][0-9]*)"

_FORMATS = {
    "date": _DATE,
    "time": _TIME,
    "date-time": f"{_DATE}[Tt]{_TIME}",
    "duration": _DURATION,
    "uuid": "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
    "ipv4": _IPV4,
    "ipv6": _IPV6,
    "hostname": _HOSTNAME,
    "email": _EMAIL,
    "uri": _uri(False, False),
    "uri-reference": _uri(False, True),
    "iri": _uri(True, False),
    "iri-reference": _uri(True, True),
    "uri-template": _URI_TEMPLATE,
    "json-pointer": _JSON_POINTER,
}
SUPPORTED_FORMATS = frozenset(_FORMATS) | {"relative-json-pointer"}

# Length range (min, max or None) in characters that each format's regex implies by itself.
FORMAT_WIDTH = {"date": (10, 10), "uuid": (36, 36), "ipv4": (7, 15), "ipv6": (2, 45),
                "time": (9, None), "date-time": (20, None), "duration": (3, None), "hostname": (1, None),
                "email": (3, None), "uri": (2, None), "iri": (2, None)}
# Length limits of a format that its regex does not enforce: RFC 1123's 253-character names.
FORMAT_LIMIT = {"hostname": (1, 253)}


def format_regex(fmt: str, draft: int) -> str | None:
    """The regex for the string content of `fmt` under JSON Schema `draft` (4, 6, 7, 2019 or
    2020), or None when tokenguide does not support `fmt` (unknown, or refused)."""
    if fmt == "relative-json-pointer":
        # draft-bhutton-relative-json-pointer-00 (2020-12) adds an index manipulation before a
        # pointer ("0+1/a"): ("+" / "-") non-negative-integer; not before "#"
        shift = f"(?:[+-]{_NON_NEG})?" if draft >= 2020 else ""
        return f"{_NON_NEG}(?:#|{shift}{_JSON_POINTER})"
    return _FORMATS.get(fmt)
